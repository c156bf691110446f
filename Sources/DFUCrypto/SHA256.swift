internal import CCrypto

/// SHA-256 digests through OpenSSL's libcrypto.
///
/// The corresponding C functions are `SHA256_Init`, `SHA256_Update` and `SHA256_Final`: libcrypto's own
/// implementation, the assembly its default provider runs too (with the CPU's SHA extensions where it has them),
/// called without EVP. Measured with callgrind and `getrusage` on Debian 12's OpenSSL 3.0, a first digest through
/// `EVP_Digest` costs 3.6 M instructions and 1.1 MB of resident memory before hashing a byte: its first fetch fills the
/// library's name map with every legacy algorithm name (`ossl_namemap_stored`), even in a library context of its own.
/// Every `dfu` run hashes its firmware, so every run paid that; the one-shot `SHA256()` fetches the same way. OpenSSL
/// 3.0 deprecated these functions (Sources/CCrypto/shim.h); signatures, which need a provider, stay on EVP.
public enum SHA256 {
    /// The 32-byte digest of `bytes`, most significant byte first (as printed by `sha256sum`).
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        LibCrypto.digest(
            bytes[...], size: 32, context: SHA256_CTX(), start: SHA256_Init, update: SHA256_Update, finish: SHA256_Final)
    }
}
