import DFUFormats
/// One Secure DFU control point request.
public enum SecureDFURequest: Sendable, Hashable, CustomStringConvertible {
    /// `01 <type> <size u32>`.
    case create(SecureDFUObjectType, size: UInt32)
    /// `02 <value u16>`.
    case setPRN(UInt16)
    /// `03`.
    case calculateChecksum
    /// `04`.
    case execute
    /// `06 <type>`.
    case select(SecureDFUObjectType)
    /// `0C`.
    case abort

    /// The opcode of the request.
    public var opCode: SecureDFUOpCode {
        switch self {
        case .create: .createObject
        case .setPRN: .setPRN
        case .calculateChecksum: .calculateChecksum
        case .execute: .execute
        case .select: .selectObject
        case .abort: .abort
        }
    }

    /// The frame written to the control point.
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .create(let type, let size):
            writer.writeInteger(type.rawValue)
            writer.writeInteger(size)
        case .setPRN(let value): writer.writeInteger(value)
        case .select(let type): writer.writeInteger(type.rawValue)
        case .calculateChecksum, .execute, .abort: break
        }
        return writer.bytes
    }

    /// Why bytes written to the control point are not a request this client sends.
    public struct DecodingError: Error, Sendable, Hashable {
        /// The frame.
        public let bytes: [UInt8]
    }

    /// Decodes a frame written to the control point: exactly one of the requests above, nothing after it.
    public init(bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes)
        let request: SecureDFURequest?
        switch reader.readByte().map(SecureDFUOpCode.init(rawValue:)) {
        case .createObject?:
            if let type = reader.readByte().flatMap(SecureDFUObjectType.init(rawValue:)),
                let size = reader.readInteger(as: UInt32.self) {
                request = .create(type, size: size)
            } else {
                request = nil
            }
        case .setPRN?: request = reader.readInteger(as: UInt16.self).map { .setPRN($0) }
        case .calculateChecksum?: request = .calculateChecksum
        case .execute?: request = .execute
        case .selectObject?: request = reader.readByte().flatMap(SecureDFUObjectType.init(rawValue:)).map { .select($0) }
        case .abort?: request = .abort
        default: request = nil
        }
        guard let request, reader.readableBytes == 0 else { throw DecodingError(bytes: bytes) }
        self = request
    }

    /// Name and bytes, e.g. "Create Object (01 02 00 10 00 00)".
    public var description: String { "\(opCode) (\(bytes.hexDescription))" }
}
