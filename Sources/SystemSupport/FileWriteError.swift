/// A file named on the command line could not be written.
public struct FileWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as the user gave it.
    public let path: String
    /// Why it could not be written, e.g. "permission denied".
    public let reason: String

    /// Makes the error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// One line naming the file and the cause.
    public var description: String { "\(path): cannot write: \(reason)" }
}
