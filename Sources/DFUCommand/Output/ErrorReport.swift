
/// The one place that turns an error into a one-line message on standard error and an exit code.
enum ErrorReport {
    /// Writes `dfu: <message>` and returns the exit code for `error`.
    static func report(_ error: any Error, context: CommandContext) -> ExitCode {
        let (code, message) = classify(error)
        var line = "dfu: \(message)"
        if let usage = error as? UsageError {
            let topic = usage.command.map { "dfu \($0) --help" } ?? "dfu --help"
            line += " (see '\(topic)')"
        }
        context.writeError(line.replacingNewlines + "\n")
        return code
    }

    /// The exit code and the message for `error`.
    static func classify(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as UsageError: (.usage, error.description)
        case let error as FileReadError: (.noInput, error.description)
        case let error as BadInputError: (.badPackage, error.description)
        default: (.software, "internal error: \(String(describing: error))")
        }
    }
}

extension String {
    /// The text on one line: newlines become "; ".
    var replacingNewlines: String {
        split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}
