/// `dfu pkg display PACKAGE`: `dfu inspect` under the name nrfutil users know (`nrfutil pkg display`).
enum PkgDisplayCommand: Subcommand {
    static let name = "pkg display"
    /// Every code but 73: it writes no file.
    static let exitCodes = Help.exitCodes.map(\.0).filter { $0 != .cannotCreate }
    static let abstract = "the same as 'dfu inspect' (nrfutil's name for it)"
    static let synopsis = InspectCommand.synopsis
    static let discussion = InspectCommand.discussion
    static let examples: [(command: String, comment: String)] = [("dfu pkg display app_dfu_package.zip", "what is in a package")]
    static let options: [OptionSpec] = InspectCommand.options

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        try await InspectCommand.run(arguments, context: context)
    }
}
