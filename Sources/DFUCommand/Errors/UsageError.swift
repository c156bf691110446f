/// The command line is wrong: an unknown option, a missing or bad value, a missing argument.
///
/// It renders as one line that names the option and what is allowed; `dfu` exits with 64.
struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence shown to the user.
    let description: String
    /// The command whose `--help` to point at, e.g. `inspect`.
    let command: String?

    init(_ description: String, command: String? = nil) {
        self.description = description
        self.command = command
    }
}
