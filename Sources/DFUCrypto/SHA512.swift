internal import CCrypto

/// SHA-512 digests through OpenSSL's libcrypto (MCUboot's SHA512 TLV, e.g. `imgtool sign --sha 512`).
///
/// The corresponding C function is `EVP_Digest` with `EVP_sha512`.
public enum SHA512 {
    /// The 64-byte digest of `bytes`, or an empty array if libcrypto cannot allocate.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.prepare()
        var out = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha512(), nil)
            }
        }
        if ok != 1 || length != 64 { return [] }
        return out
    }
}
