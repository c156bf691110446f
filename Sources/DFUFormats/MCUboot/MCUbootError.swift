/// Why an MCUboot image, or an nRF Connect SDK package of them, cannot be used.
///
/// ``description`` is one sentence that starts with the file or member it is about, e.g.
/// `app_update.bin: the image hash (SHA256 TLV) does not match the image`.
public enum MCUbootError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes do not start with MCUboot's image magic.
    case notAnImage(name: String)
    /// The file ends before a part its header or TLV areas announce.
    case truncated(name: String, part: String, needed: UInt64, size: Int)
    /// A header field or TLV area is inconsistent (the cause says which).
    case malformed(name: String, cause: String)
    /// The image has no hash TLV (MCUboot refuses such an image).
    case missingHash(name: String)
    /// The hash recomputed over header, body and protected TLVs differs from the hash TLV.
    case hashMismatch(name: String)
    /// No signature verifies with the given key.
    case invalidSignature(name: String)
    /// A key was given but the image has no signature.
    case unsigned(name: String)
    /// A key was given but the signature cannot be checked with it (the reason says why).
    case unverifiableSignature(name: String, reason: String)
    /// The package's `manifest.json` cannot be read (the cause says why).
    case invalidManifest(cause: String)
    /// A file named by `manifest.json` is not in the package.
    case missingMember(name: String)
    /// `manifest.json` gives a member a size it does not have.
    case sizeMismatch(name: String, manifestSize: Int, actualSize: Int)
    /// The package lists no image.
    case noImages

    /// One sentence naming the file or member and the cause.
    public var description: String {
        switch self {
        case .notAnImage(let name):
            "\(name): not an MCUboot image (it does not start with the magic 0x96f3b83d)"
        case .truncated(let name, let part, let needed, let size):
            "\(name): truncated: the \(part) needs \(needed) bytes, but the image has \(size)"
        case .malformed(let name, let cause):
            "\(name): malformed MCUboot image: \(cause)"
        case .missingHash(let name):
            "\(name): the image has no SHA256 (or SHA384, SHA512) TLV, so its hash cannot be checked"
        case .hashMismatch(let name):
            "\(name): the image does not match its hash TLV: it was changed after signing"
        case .invalidSignature(let name):
            "\(name): the image signature does not verify with the given key"
        case .unsigned(let name):
            "\(name): the image is not signed, but a key was given"
        case .unverifiableSignature(let name, let reason):
            "\(name): the image signature cannot be checked with the given key (\(reason))"
        case .invalidManifest(let cause):
            "manifest.json: \(cause)"
        case .missingMember(let name):
            "\(name): named by manifest.json but missing from the package"
        case .sizeMismatch(let name, let manifestSize, let actualSize):
            "\(name): manifest.json gives its size as \(manifestSize) bytes, but it has \(actualSize)"
        case .noImages:
            "manifest.json: the manifest lists no image ('files' is empty)"
        }
    }
}
