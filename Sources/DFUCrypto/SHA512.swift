internal import CCrypto

/// SHA-512 digests through OpenSSL's libcrypto (MCUboot's SHA512 TLV, e.g. `imgtool sign --sha 512`).
///
/// The corresponding C functions are `SHA512_Init`, `SHA512_Update` and `SHA512_Final`, without EVP, as for
/// ``SHA256``.
public enum SHA512 {
    /// The 64-byte digest of `bytes`, or an empty array if libcrypto fails.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.prepare()
        var out = [UInt8](repeating: 0, count: 64)
        var context = SHA512_CTX()
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                SHA512_Init(&context) == 1 && SHA512_Update(&context, input.baseAddress, input.count) == 1
                    && SHA512_Final(output.baseAddress, &context) == 1
            }
        }
        if !ok { return [] }
        return out
    }
}
