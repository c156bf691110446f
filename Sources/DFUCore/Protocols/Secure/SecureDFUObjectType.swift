/// The two kinds of Secure DFU object.
public enum SecureDFUObjectType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// The command object: the init packet.
    case command = 0x01
    /// A data object: up to one flash page of firmware.
    case data = 0x02

    /// "command object" or "data object".
    public var description: String { self == .command ? "command object" : "data object" }
}
