internal import CCrypto

/// SHA-512 digests through OpenSSL's libcrypto (MCUboot's SHA512 TLV, e.g. `imgtool sign --sha 512`).
///
/// The corresponding C functions are `SHA512_Init`, `SHA512_Update` and `SHA512_Final`, without EVP, as for
/// ``SHA256``.
public enum SHA512 {
    /// The 64-byte digest of `bytes`, or an empty array if libcrypto fails.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.digest(
            bytes, size: 64, context: SHA512_CTX(), start: SHA512_Init, update: SHA512_Update, finish: SHA512_Final)
    }
}
