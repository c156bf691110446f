/// The `ih_flags` of an MCUboot image header (mcu-tools/mcuboot
/// `boot/bootutil/include/bootutil/image.h`, `IMAGE_F_*`).
public struct MCUbootImageFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let pic = Self(rawValue: 0x01)
    public static let encryptedAES128 = Self(rawValue: 0x04)
    public static let encryptedAES256 = Self(rawValue: 0x08)
    public static let nonBootable = Self(rawValue: 0x10)
    public static let ramLoad = Self(rawValue: 0x20)
    public static let romFixed = Self(rawValue: 0x100)
    public static let compressedLZMA1 = Self(rawValue: 0x200)
    public static let compressedLZMA2 = Self(rawValue: 0x400)
    public static let compressedARMThumb = Self(rawValue: 0x800)

    private static let names: [(Self, String)] = [
        (.pic, "PIC"), (.encryptedAES128, "ENCRYPTED_AES128"), (.encryptedAES256, "ENCRYPTED_AES256"),
        (.nonBootable, "NON_BOOTABLE"), (.ramLoad, "RAM_LOAD"), (.romFixed, "ROM_FIXED"),
        (.compressedLZMA1, "COMPRESSED_LZMA1"), (.compressedLZMA2, "COMPRESSED_LZMA2"),
        (.compressedARMThumb, "COMPRESSED_ARM_THUMB_FLT"),
    ]

    /// Whether the body is encrypted (its hash then covers the plaintext, `bootutil_img_hash`).
    public var isEncrypted: Bool { !intersection([.encryptedAES128, .encryptedAES256]).isEmpty }

    /// The set flags' names, unknown bits as hex; `none` for no flag.
    public var names: [String] {
        var out = Self.names.filter { contains($0.0) }.map(\.1)
        let known = Self.names.reduce(0) { $0 | $1.0.rawValue }
        let unknown = rawValue & ~known
        if unknown != 0 { out.append("0x" + String(unknown, radix: 16)) }
        return out
    }

    /// E.g. `0x00000010 (NON_BOOTABLE)`.
    public var description: String {
        let hex = String(rawValue, radix: 16)
        let padded = "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        return names.isEmpty ? padded : "\(padded) (\(names.joined(separator: ", ")))"
    }
}
