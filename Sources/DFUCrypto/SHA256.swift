internal import CCrypto

/// SHA-256 digests through OpenSSL's libcrypto.
///
/// The corresponding C function is `EVP_Digest` with `EVP_sha256`.
public enum SHA256 {
    /// The 32-byte digest of `bytes`, most significant byte first (as printed by `sha256sum`).
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        LibCrypto.prepare()
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when libcrypto cannot allocate; a digest of zeros would be wrong,
        // so surface it as a crash-free sentinel the callers compare against and never match.
        if ok != 1 || length != 32 { return [] }
        return out
    }
}
