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

    /// Name and bytes, e.g. "Create Object (01 02 00 10 00 00)".
    public var description: String { "\(opCode) (\(bytes.hexDescription))" }
}
