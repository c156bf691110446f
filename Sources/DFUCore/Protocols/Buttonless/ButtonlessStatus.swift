import DFUFormats
/// The status byte of a buttonless response (`20 <op> <status>`).
public struct ButtonlessStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8
    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01: success.
    public static let success = ButtonlessStatus(rawValue: 0x01)
    /// 0x02: opcode not supported (SDK 13 answers this to "set name").
    public static let opCodeNotSupported = ButtonlessStatus(rawValue: 0x02)
    /// 0x04: operation failed.
    public static let operationFailed = ButtonlessStatus(rawValue: 0x04)
    /// 0x05: invalid advertisement name (empty or too long).
    public static let invalidAdvertisementName = ButtonlessStatus(rawValue: 0x05)
    /// 0x06: busy, an asynchronous operation is pending.
    public static let busy = ButtonlessStatus(rawValue: 0x06)
    /// 0x07: the link is not bonded.
    public static let notBonded = ButtonlessStatus(rawValue: 0x07)

    /// e.g. "not bonded (0x07)".
    public var description: String {
        let name: String
        switch self {
        case .success: name = "success"
        case .opCodeNotSupported: name = "opcode not supported"
        case .operationFailed: name = "operation failed"
        case .invalidAdvertisementName: name = "invalid advertisement name"
        case .busy: name = "busy"
        case .notBonded: name = "not bonded"
        default: name = "unknown status"
        }
        return name + " (0x" + [rawValue].hexDescription + ")"
    }
}
