/// Why a benchmark could not produce its figure.
public enum BenchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A modelled upload ended without the image installed.
    case notInstalled(String)
    /// No timed run was made.
    case noRuns
    /// A child process could not be started or failed.
    case child(String)
    /// A command-line argument was wrong.
    case usage(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notInstalled(let row): "the modelled upload (\(row)) did not install the image"
        case .noRuns: "no timed run was made"
        case .child(let reason): "child process: \(reason)"
        case .usage(let reason): reason
        }
    }
}
