import DFUFormats
/// The first byte of a Legacy DFU control point request or notification.
public struct LegacyDFUOpCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8
    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Start DFU (`01 <image type>`, then the sizes on the packet characteristic).
    public static let startDFU = LegacyDFUOpCode(rawValue: 0x01)
    /// 0x02 Initialize DFU parameters (`02 00` begin, `02 01` complete).
    public static let initialize = LegacyDFUOpCode(rawValue: 0x02)
    /// 0x03 Receive firmware image.
    public static let receiveFirmware = LegacyDFUOpCode(rawValue: 0x03)
    /// 0x04 Validate firmware.
    public static let validate = LegacyDFUOpCode(rawValue: 0x04)
    /// 0x05 Activate image and reset.
    public static let activateAndReset = LegacyDFUOpCode(rawValue: 0x05)
    /// 0x06 Reset (abandon DFU).
    public static let reset = LegacyDFUOpCode(rawValue: 0x06)
    /// 0x08 Packet receipt notification request (`08 <N u16>`, no answer).
    public static let packetReceiptRequest = LegacyDFUOpCode(rawValue: 0x08)
    /// 0x10 Response (`10 <request op> <status>`).
    public static let response = LegacyDFUOpCode(rawValue: 0x10)
    /// 0x11 Packet receipt notification (`11 <bytes received u32>`).
    public static let packetReceipt = LegacyDFUOpCode(rawValue: 0x11)

    /// The name, e.g. "Start DFU".
    public var description: String {
        switch self {
        case .startDFU: "Start DFU"
        case .initialize: "Initialize DFU Parameters"
        case .receiveFirmware: "Receive Firmware Image"
        case .validate: "Validate Firmware"
        case .activateAndReset: "Activate and Reset"
        case .reset: "Reset"
        case .packetReceiptRequest: "Packet Receipt Notification Request"
        case .response: "Response"
        case .packetReceipt: "Packet Receipt Notification"
        default: "opcode 0x" + [rawValue].hexDescription
        }
    }
}
