/// A file named on the command line could not be written.
struct FileWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "\(path): cannot write: \(reason)" }
}
