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

    /// Reads the version text of an image list entry: Zephyr's `img_mgmt_ver_str` writes
    /// `major.minor.revision`, then `.build` only when the build number is not 0 (its buffer is sized for
    /// "255.255.65535.4294967295"). Nil for any other text (another server's form).
    public init?(imageListText text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy { ("0"..."9").contains($0) } }),
              let major = UInt8(parts[0]), let minor = UInt8(parts[1]), let revision = UInt16(parts[2]),
              let build = parts.count == 4 ? UInt32(parts[3]) : 0
        else { return nil }
        self.init(major: major, minor: minor, revision: revision, build: build)
    }

    /// E.g. `1.2.3+4` (`1.2.3+0` for build 0), the form imgtool's `--version` takes and nRF Connect SDK's
    /// manifest (`version_MCUBOOT`) writes; `dfu` shows every MCUboot version so, the device's image list too.
    public var description: String { "\(major).\(minor).\(revision)+\(build)" }

    /// Orders by major, minor, revision, then build number.
    public static func < (a: Self, b: Self) -> Bool {
        (a.major, a.minor, a.revision, a.build) < (b.major, b.minor, b.revision, b.build)
    }
}
