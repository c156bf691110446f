/// A package or firmware file that cannot be used, with the file's name in front of the cause.
struct BadInputError: Error, Sendable, CustomStringConvertible {
    /// The file as the user named it.
    let path: String
    /// Why it cannot be used, one sentence.
    let cause: String

    var description: String { "\(path): \(cause)" }
}
