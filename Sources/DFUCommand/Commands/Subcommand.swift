/// A `dfu` subcommand: its name, its help, the options it accepts, and what it does.
protocol Subcommand: Sendable {
    /// The word typed after `dfu`, e.g. `inspect`.
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// The synopsis after `dfu NAME`, e.g. `PACKAGE [--key PUBLIC.pem] [--json]`.
    static var synopsis: String { get }
    /// What the command does, in a paragraph or two.
    static var discussion: String { get }
    /// Worked examples, one command line each with a comment.
    static var examples: [(command: String, comment: String)] { get }
    /// The options it accepts (`--help` is added by the dispatcher).
    static var options: [OptionSpec] { get }
    /// Runs the command. Errors are rendered and mapped to exit codes by ``ErrorReport``.
    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode
    /// How long the command may take to wind down after Ctrl-C or SIGTERM before `dfu` exits 130
    /// without it.
    static var interruptGrace: Duration { get }
    /// The exit codes it can return, for its help.
    static var exitCodes: [ExitCode] { get }
}

extension Subcommand {
    static var interruptGrace: Duration { .seconds(2) }
    static var exitCodes: [ExitCode] { Help.exitCodes.map(\.0) }
}
