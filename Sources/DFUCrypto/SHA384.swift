internal import CCrypto

/// SHA-384 digests through OpenSSL's libcrypto (MCUboot's SHA384 TLV, used with ECDSA P-384).
///
/// The corresponding C functions are `SHA384_Init`, `SHA384_Update` and `SHA384_Final`, without EVP, as for
/// ``SHA256``.
public enum SHA384 {
    /// The 48-byte digest of `bytes`, or an empty array if libcrypto fails.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.digest(
            bytes, size: 48, context: SHA512_CTX(), start: SHA384_Init, update: SHA384_Update, finish: SHA384_Final)
    }
}
