import DFUFormats
/// The first byte of a buttonless request (and the second byte of its response).
///
/// A struct rather than an enum so an unknown value from a device still prints.
public struct ButtonlessOpCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8
    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01: reboot into the bootloader.
    public static let enterBootloader = ButtonlessOpCode(rawValue: 0x01)
    /// 0x02: the name the bootloader will advertise (SDK 14+, the variant without bonds).
    public static let setAdvertisingName = ButtonlessOpCode(rawValue: 0x02)
    /// 0x20: response frame marker, first byte of every indication.
    public static let response = ButtonlessOpCode(rawValue: 0x20)

    /// e.g. "Enter Bootloader" or "opcode 0x42".
    public var description: String {
        switch self {
        case .enterBootloader: "Enter Bootloader"
        case .setAdvertisingName: "Set Advertising Name"
        case .response: "Response"
        default: "opcode 0x" + [rawValue].hexDescription
        }
    }
}
