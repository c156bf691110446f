import DFUFormats
/// The first byte of a Secure DFU control point request (and the second byte of its response).
///
/// A struct rather than an enum so an unknown value from a device still prints.
public struct SecureDFUOpCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8
    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Protocol version (0x00), not used over BLE.
    public static let protocolVersion = SecureDFUOpCode(rawValue: 0x00)
    /// Create object (0x01): type u8, size u32.
    public static let createObject = SecureDFUOpCode(rawValue: 0x01)
    /// Set Packet Receipt Notification value (0x02): u16, 0 = off.
    public static let setPRN = SecureDFUOpCode(rawValue: 0x02)
    /// Calculate checksum (0x03): answered with offset u32 and CRC-32 u32.
    public static let calculateChecksum = SecureDFUOpCode(rawValue: 0x03)
    /// Execute the current object (0x04).
    public static let execute = SecureDFUOpCode(rawValue: 0x04)
    /// Select object (0x06): answered with max size, offset and CRC-32.
    public static let selectObject = SecureDFUOpCode(rawValue: 0x06)
    /// Abort (0x0C, SDK 15+): the bootloader resets.
    public static let abort = SecureDFUOpCode(rawValue: 0x0C)
    /// Response frame marker (0x60), first byte of every notification.
    public static let response = SecureDFUOpCode(rawValue: 0x60)

    /// The name used in messages, e.g. "Create Object" or "opcode 0x42".
    public var description: String {
        switch self {
        case .protocolVersion: "Protocol Version"
        case .createObject: "Create Object"
        case .setPRN: "Set PRN"
        case .calculateChecksum: "Calculate Checksum"
        case .execute: "Execute"
        case .selectObject: "Select Object"
        case .abort: "Abort"
        case .response: "Response"
        default: "opcode 0x" + [rawValue].hexDescription
        }
    }
}
