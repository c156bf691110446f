/// The value of the Legacy DFU Version characteristic: `<minor> <major>` (a little-endian u16).
public struct LegacyDFUVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// High byte.
    public let major: UInt8
    /// Low byte.
    public let minor: UInt8

    /// Makes a version.
    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    /// Decodes the characteristic value; nil unless it is exactly 2 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 2 else { return nil }
        self.init(major: bytes[1], minor: bytes[0])
    }

    /// The characteristic value.
    public var bytes: [UInt8] { [minor, major] }

    /// 0.1: an application that can jump to its bootloader (`01 04`).
    public static let applicationWithButtonlessJump = LegacyDFUVersion(major: 0, minor: 1)

    /// Whether this value means application mode.
    public var isApplication: Bool { self == .applicationWithButtonlessJump }

    /// Orders by major then minor.
    public static func < (lhs: LegacyDFUVersion, rhs: LegacyDFUVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// e.g. "0.8".
    public var description: String { "\(major).\(minor)" }
}
