internal import CCrypto

/// SHA-384 digests through OpenSSL's libcrypto (MCUboot's SHA384 TLV, used with ECDSA P-384).
///
/// The corresponding C functions are `SHA384_Init`, `SHA384_Update` and `SHA384_Final`, without EVP, as for
/// ``SHA256``.
public enum SHA384 {
    /// The 48-byte digest of `bytes`, or an empty array if libcrypto fails.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.prepare()
        var out = [UInt8](repeating: 0, count: 48)
        var context = SHA512_CTX()
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                SHA384_Init(&context) == 1 && SHA384_Update(&context, input.baseAddress, input.count) == 1
                    && SHA384_Final(output.baseAddress, &context) == 1
            }
        }
        if !ok { return [] }
        return out
    }
}
