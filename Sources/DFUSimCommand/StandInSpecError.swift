/// A `--device`, `--link` or `--fault` specification that cannot be understood.
public struct StandInSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the offending text.
    public let message: String

    /// Makes an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
