/// The `dfu` command line as a library: parse, run, render errors, return the exit code.
///
/// The executable only calls ``main(_:context:)`` with `CommandLine.arguments` and exits.
public enum DFUCommand {
    /// The version `dfu --version` prints.
    public static let version = "0.1.0"

    static let subcommands: [any Subcommand.Type] = [
        UploadCommand.self, ScanCommand.self, TriggerCommand.self, ImagesCommand.self, ConfirmCommand.self, ResetCommand.self,
        EraseCommand.self,
        InspectCommand.self, PkgGenerateCommand.self,
        PkgDisplayCommand.self, KeysGenerateCommand.self, KeysDisplayCommand.self,
    ]

    /// Commands of two words (`pkg generate`, `keys display`): the first words.
    static let commandGroups: Set<String> = ["pkg", "keys"]

    /// The command the arguments start with (one or two words).
    private static func lookUp(_ arguments: ArraySlice<String>) -> (any Subcommand.Type)? {
        guard let first = arguments.first else { return nil }
        if commandGroups.contains(first), arguments.count > 1 {
            let full = "\(first) \(arguments[arguments.startIndex + 1])"
            return subcommands.first(where: { $0.name == full })
        }
        return subcommands.first(where: { $0.name == first })
    }

    private static func unknownCommandMessage(_ word: String) -> String {
        if word.hasPrefix("-") { return "unknown option \(word)" }
        var names: [String] = []
        for command in subcommands { names.append(command.name) }
        for name in names where EditDistance.between(Substring(name), Substring(word)) <= 2 {
            return "unknown command '\(word)'; did you mean '\(name)'?"
        }
        return "unknown command '\(word)'"
    }

    private static func run(
        _ command: any Subcommand.Type, _ arguments: [String], context: CommandContext
    ) async -> ExitCode {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, specs: command.options, command: command.name)
        } catch {
            return ErrorReport.report(error, context: context)
        }
        let work = Task(executorPreference: context.executor) { () async -> ExitCode in
            do {
                return try await command.run(parsed, context: context)
            } catch {
                return ErrorReport.report(error, context: context)
            }
        }
        // The first Ctrl-C or SIGTERM cancels the command; one that does not end within its grace
        // (a call into the stack that does not return) is left behind with exit 130.
        let ending = FirstResult<ExitCode>()
        return await withCheckedContinuation { continuation in
            ending.resume(with: continuation)
            Task(executorPreference: context.executor) { ending.deliver(await work.value) }
            context.interrupts.onInterrupt {
                work.cancel()
                Task {
                    try? await Task.sleep(for: command.interruptGrace)
                    if ending.deliver(.interrupted) {
                        context.writeError("dfu: \(command.name) interrupted; it did not stop within \(ProgressText.seconds(command.interruptGrace))\n")
                    }
                }
            }
        }
    }

    /// Runs `dfu` with `arguments` (without the program name) and returns the exit status; output that
    /// could not be written makes it 74 (unless the command already failed).
    public static func main(_ arguments: [String], context: CommandContext) async -> ExitCode {
        let code = await dispatch(arguments, context: context)
        guard let failure = context.outputError() else { return code }
        context.writeError("dfu: cannot write to standard output: \(failure)\n")
        return code == .success ? .outputFailed : code
    }

    private static func dispatch(_ arguments: [String], context: CommandContext) async -> ExitCode {
        guard let first = arguments.first else {
            context.writeError(Help.overview())
            return .usage
        }
        switch first {
        case "-h", "--help":
            context.writeOutput(Help.overview())
            return .success
        case "-V", "--version":
            context.writeOutput("dfu \(version)\n")
            return .success
        case "help":
            guard arguments.count > 1 else {
                context.writeOutput(Help.overview())
                return .success
            }
            if arguments.count == 2, commandGroups.contains(arguments[1]) {
                context.writeOutput(Help.help(forGroup: arguments[1]))
                return .success
            }
            guard let command = lookUp(arguments.dropFirst()) else {
                return ErrorReport.report(UsageError("unknown command '\(arguments.dropFirst().joined(separator: " "))'"), context: context)
            }
            context.writeOutput(Help.help(for: command))
            return .success
        default:
            break
        }
        guard let found = lookUp(arguments[...]) else {
            if commandGroups.contains(first) {
                if arguments.count == 2, ["--help", "-h"].contains(arguments[1]) {
                    context.writeOutput(Help.help(forGroup: first))
                    return .success
                }
                var choices: [String] = []
                for command in subcommands where command.name.hasPrefix(first + " ") { choices.append(command.name) }
                let given = arguments.count > 1 ? "unknown command '\(first) \(arguments[1])'" : "missing command after '\(first)'"
                return ErrorReport.report(UsageError("\(given); expected \(choices.joined(separator: ", "))"), context: context)
            }
            return ErrorReport.report(UsageError(unknownCommandMessage(first)), context: context)
        }
        let command = found
        let rest = Array(arguments.dropFirst(command.name.split(separator: " ").count))
        if rest.contains("--help") || rest.contains("-h") {
            context.writeOutput(Help.help(for: command))
            return .success
        }
        return await run(command, rest, context: context)
    }
}
