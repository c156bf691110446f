/// Whether an MCUboot image's SHA256 TLV matches the image.
public enum MCUbootHashCheck: Sendable, Hashable, CustomStringConvertible {
    /// The SHA-256 of header, body and protected TLVs equals the TLV.
    case matches
    /// It does not: the image was changed after it was signed, or is damaged.
    case mismatch
    /// It cannot be recomputed here (the reason says why); the image is not refused for it.
    case notCheckable(reason: String)

    /// E.g. `matches`, `MISMATCH`.
    public var description: String {
        switch self {
        case .matches: "matches"
        case .mismatch: "MISMATCH (the image was changed after signing)"
        case .notCheckable(let reason): "not checkable (\(reason))"
        }
    }

    /// For JSON's `hash_ok`: true, false, or nil when not checkable.
    public var isOK: Bool? {
        switch self {
        case .matches: true
        case .mismatch: false
        case .notCheckable: nil
        }
    }
}
