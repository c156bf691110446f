/// The result of comparing an init packet's digest with its image.
public enum ImageCheck: Sendable, Hashable, CustomStringConvertible {
    /// The digest matches.
    case matches(ImageDigest)
    /// The digest does not match.
    case mismatch(ImageDigest)
    /// Nothing to compare, or a digest this tool cannot compute (the reason says which).
    case notChecked(reason: String)

    /// Whether the image is known to match its init packet.
    public var isMatch: Bool {
        if case .matches = self { true } else { false }
    }

    /// E.g. `ok (SHA-256, little-endian)`, `MISMATCH (CRC-16)`, `not checked (no init packet)`.
    public var description: String {
        switch self {
        case .matches(let digest): "ok (\(digest))"
        case .mismatch(let digest): "MISMATCH (\(digest))"
        case .notChecked(let reason): "not checked (\(reason))"
        }
    }
}

/// Which digest an init packet carries, and for SHA-256 in which byte order it is stored.
public enum ImageDigest: Sendable, Hashable, CustomStringConvertible {
    /// SHA-256; nrfutil stores it little-endian (byte-reversed), a few 2016 packages big-endian.
    case sha256(ByteOrder)
    /// CRC-32 (Secure `HashType.CRC`), stored little-endian.
    case crc32
    /// CRC-16/CCITT-FALSE (Legacy).
    case crc16

    /// The order of a stored digest's bytes.
    public enum ByteOrder: String, Sendable, Hashable {
        /// Reversed, least significant byte first (what nrfutil writes).
        case littleEndian = "little-endian"
        /// As printed by `sha256sum`.
        case bigEndian = "big-endian"
    }

    /// E.g. `SHA-256, little-endian`.
    public var description: String {
        switch self {
        case .sha256(let order): "SHA-256, \(order.rawValue)"
        case .crc32: "CRC-32"
        case .crc16: "CRC-16"
        }
    }
}
