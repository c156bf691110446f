internal import CCrypto

/// SHA-384 digests through OpenSSL's libcrypto (MCUboot's SHA384 TLV, used with ECDSA P-384).
///
/// The corresponding C function is `EVP_Digest` with `EVP_sha384`.
public enum SHA384 {
    /// The 48-byte digest of `bytes`, or an empty array if libcrypto cannot allocate.
    public static func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        LibCrypto.prepare()
        var out = [UInt8](repeating: 0, count: 48)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha384(), nil)
            }
        }
        if ok != 1 || length != 48 { return [] }
        return out
    }
}
