/// The Bluetooth stack cannot be used: BlueZ is not running, the system bus is unreachable, or the
/// adapter is missing or powered off. `dfu` exits with 69.
public struct TransportUnavailableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is missing and what to do, one sentence.
    public let reason: String

    /// Makes the error.
    public init(reason: String) { self.reason = reason }

    /// The sentence.
    public var description: String { reason }
}
