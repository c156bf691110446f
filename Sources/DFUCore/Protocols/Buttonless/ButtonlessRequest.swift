import DFUFormats
/// A request written to a buttonless characteristic.
public enum ButtonlessRequest: Sendable, Hashable, CustomStringConvertible {
    /// `01`: reboot into the bootloader.
    case enterBootloader
    /// `02 <length u8> <UTF-8 name>`: the name the bootloader will advertise.
    case setAdvertisingName(String)

    /// The opcode.
    public var opCode: ButtonlessOpCode {
        switch self {
        case .enterBootloader: .enterBootloader
        case .setAdvertisingName: .setAdvertisingName
        }
    }

    /// The frame; a name is cut to its first 20 UTF-8 bytes, the most the application takes (SDK 15
    /// `ble_dfu_unbonded.c`, `NRF_DFU_ADV_NAME_MAX_LENGTH`).
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.writeInteger(opCode.rawValue)
        if case .setAdvertisingName(let name) = self {
            let utf8 = Array(name.utf8.prefix(20))
            writer.writeInteger(UInt8(utf8.count))
            writer.writeBytes(utf8)
        }
        return writer.bytes
    }

    /// Why bytes written to a buttonless characteristic are not a request this client sends.
    public struct DecodingError: Error, Sendable, Hashable {
        /// The frame.
        public let bytes: [UInt8]
    }

    /// Decodes a frame: `01`, or `02`, a length of 1 to 20 and that many bytes of UTF-8; nothing after it.
    public init(bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes)
        let request: ButtonlessRequest?
        switch reader.readByte().map(ButtonlessOpCode.init(rawValue:)) {
        case .enterBootloader?:
            request = .enterBootloader
        case .setAdvertisingName?:
            if let length = reader.readByte(), (1...20).contains(length), let name = reader.readBytes(length: Int(length)),
                let text = String(validating: name, as: UTF8.self) {
                request = .setAdvertisingName(text)
            } else {
                request = nil
            }
        default:
            request = nil
        }
        guard let request, reader.readableBytes == 0 else { throw DecodingError(bytes: bytes) }
        self = request
    }

    /// e.g. "Enter Bootloader (01)".
    public var description: String {
        switch self {
        case .enterBootloader: "Enter Bootloader (\(bytes.hexDescription))"
        case .setAdvertisingName(let name): "Set Advertising Name \"\(name)\" (\(bytes.hexDescription))"
        }
    }
}
