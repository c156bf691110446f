/// A file named on the command line could not be read.
public struct FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as the user gave it.
    public let path: String
    /// Why it could not be read, e.g. "no such file".
    public let reason: String

    /// Makes the error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// One line naming the file and the cause.
    public var description: String { path.isEmpty ? "cannot read a file: \(reason)" : "\(path): cannot read: \(reason)" }
}
