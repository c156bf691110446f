/// A request written to a buttonless characteristic.
public enum ButtonlessRequest: Sendable, Hashable, CustomStringConvertible {
    /// `01`: reboot into the bootloader.
    case enterBootloader
    /// `02 <length u8> <UTF-8 name>`: the name the bootloader will advertise.
    case setAdvertisingName(String)

    /// The opcode byte.
    public var opCode: UInt8 {
        switch self {
        case .enterBootloader: 0x01
        case .setAdvertisingName: 0x02
        }
    }

    /// The frame.
    public var bytes: [UInt8] {
        switch self {
        case .enterBootloader: return [0x01]
        case .setAdvertisingName(let name):
            let utf8 = Array(name.utf8.prefix(20))
            return [0x02, UInt8(utf8.count)] + utf8
        }
    }

    /// e.g. "Enter Bootloader (01)".
    public var description: String {
        switch self {
        case .enterBootloader: "Enter Bootloader (\(bytes.hexDescription))"
        case .setAdvertisingName(let name): "Set Advertising Name \"\(name)\" (\(bytes.hexDescription))"
        }
    }
}
