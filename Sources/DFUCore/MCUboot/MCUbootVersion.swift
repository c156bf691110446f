/// An MCUboot image version, `major.minor.revision+build` (mcu-tools/mcuboot
/// `boot/bootutil/include/bootutil/image.h`, `struct image_version`: u8, u8, u16, u32, little-endian).
public struct MCUbootVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: UInt8
    public let minor: UInt8
    public let revision: UInt16
    public let build: UInt32

    /// Makes a version.
    public init(major: UInt8, minor: UInt8, revision: UInt16, build: UInt32) {
        self.major = major
        self.minor = minor
        self.revision = revision
        self.build = build
    }

    /// E.g. `1.2.3+4`, as `imgtool verify` prints it.
    public var description: String { "\(major).\(minor).\(revision)+\(build)" }

    /// Orders by major, minor, revision, then build number.
    public static func < (a: Self, b: Self) -> Bool {
        (a.major, a.minor, a.revision, a.build) < (b.major, b.minor, b.revision, b.build)
    }
}
