/// The status byte of a Legacy DFU response (`10 <op> <status>`).
public struct LegacyDFUStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8
    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 1: success.
    public static let success = LegacyDFUStatus(rawValue: 1)
    /// 2: invalid state (a previous DFU was interrupted).
    public static let invalidState = LegacyDFUStatus(rawValue: 2)
    /// 3: not supported (e.g. this image type combination).
    public static let notSupported = LegacyDFUStatus(rawValue: 3)
    /// 4: the image is larger than the bootloader accepts.
    public static let dataSizeExceedsLimit = LegacyDFUStatus(rawValue: 4)
    /// 5: CRC error.
    public static let crcError = LegacyDFUStatus(rawValue: 5)
    /// 6: operation failed.
    public static let operationFailed = LegacyDFUStatus(rawValue: 6)

    /// e.g. "CRC error (status 5)".
    public var description: String {
        let name: String
        switch self {
        case .success: name = "success"
        case .invalidState: name = "invalid state"
        case .notSupported: name = "not supported"
        case .dataSizeExceedsLimit: name = "data size exceeds limit"
        case .crcError: name = "CRC error"
        case .operationFailed: name = "operation failed"
        default: name = "unknown status"
        }
        return "\(name) (status \(rawValue))"
    }
}
