import DFUFormats
/// The result byte of a Secure DFU response (`60 <op> <result>`).
public struct SecureDFUResultCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8
    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00: missing or malformed opcode.
    public static let invalidCode = SecureDFUResultCode(rawValue: 0x00)
    /// 0x01: success.
    public static let success = SecureDFUResultCode(rawValue: 0x01)
    /// 0x02: opcode not supported.
    public static let opCodeNotSupported = SecureDFUResultCode(rawValue: 0x02)
    /// 0x03: missing or bad parameter.
    public static let invalidParameter = SecureDFUResultCode(rawValue: 0x03)
    /// 0x04: not enough memory for the object.
    public static let insufficientResources = SecureDFUResultCode(rawValue: 0x04)
    /// 0x05: the object fails the hardware/firmware requirements or does not parse.
    public static let invalidObject = SecureDFUResultCode(rawValue: 0x05)
    /// 0x06: signature mismatch (older tables).
    public static let signatureMismatch = SecureDFUResultCode(rawValue: 0x06)
    /// 0x07: unsupported object type.
    public static let unsupportedType = SecureDFUResultCode(rawValue: 0x07)
    /// 0x08: the current state does not allow it (e.g. re-executing an executed object).
    public static let operationNotPermitted = SecureDFUResultCode(rawValue: 0x08)
    /// 0x0A: operation failed.
    public static let operationFailed = SecureDFUResultCode(rawValue: 0x0A)
    /// 0x0B: see the extended error in the next byte.
    public static let extendedError = SecureDFUResultCode(rawValue: 0x0B)

    /// A short phrase, e.g. "operation not permitted (0x08)".
    public var description: String {
        let name: String
        switch self {
        case .invalidCode: name = "invalid opcode"
        case .success: name = "success"
        case .opCodeNotSupported: name = "opcode not supported"
        case .invalidParameter: name = "invalid parameter"
        case .insufficientResources: name = "insufficient resources"
        case .invalidObject: name = "invalid object"
        case .signatureMismatch: name = "signature mismatch"
        case .unsupportedType: name = "unsupported object type"
        case .operationNotPermitted: name = "operation not permitted"
        case .operationFailed: name = "operation failed"
        case .extendedError: name = "extended error"
        default: name = "unknown result"
        }
        return name + " (0x" + [rawValue].hexDescription + ")"
    }
}
