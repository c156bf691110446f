import DFUFormats
/// A decoded Legacy DFU control point notification.
public enum LegacyDFUNotification: Sendable, Hashable, CustomStringConvertible {
    /// `10 <request op> <status>`.
    case response(LegacyDFUOpCode, LegacyDFUStatus)
    /// `11 <bytes received u32>`.
    case packetReceipt(bytesReceived: UInt32)

    /// Why a notification is not a Legacy DFU frame.
    public struct DecodingError: Error, Sendable, Hashable {
        /// The frame.
        public let bytes: [UInt8]
    }

    /// Decodes a notification.
    public init(bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes)
        switch reader.readByte().map(LegacyDFUOpCode.init(rawValue:)) {
        case .response?:
            guard let op = reader.readByte(), let status = reader.readByte() else { throw DecodingError(bytes: bytes) }
            self = .response(LegacyDFUOpCode(rawValue: op), LegacyDFUStatus(rawValue: status))
        case .packetReceipt?:
            guard let count = reader.readInteger(as: UInt32.self) else { throw DecodingError(bytes: bytes) }
            self = .packetReceipt(bytesReceived: count)
        default:
            throw DecodingError(bytes: bytes)
        }
    }

    /// The frame, as a bootloader sends it.
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .response(let op, let status):
            writer.writeInteger(LegacyDFUOpCode.response.rawValue)
            writer.writeInteger(op.rawValue)
            writer.writeInteger(status.rawValue)
        case .packetReceipt(let count):
            writer.writeInteger(LegacyDFUOpCode.packetReceipt.rawValue)
            writer.writeInteger(count)
        }
        return writer.bytes
    }

    /// e.g. "Start DFU → success (status 1)" or "receipt: 240 bytes".
    public var description: String {
        switch self {
        case .response(let op, let status): "\(op) → \(status)"
        case .packetReceipt(let count): "receipt: \(count) bytes"
        }
    }
}
