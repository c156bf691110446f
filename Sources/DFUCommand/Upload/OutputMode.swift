/// How `dfu upload` reports what it does.
enum OutputMode: Sendable, Hashable {
    /// One live line per device on a terminal (standard error).
    case live(colour: Bool)
    /// Plain lines, rate-limited, no control characters (pipes, CI logs).
    case plain
    /// JSON Lines events on standard output.
    case json
    /// Only errors.
    case quiet
}
