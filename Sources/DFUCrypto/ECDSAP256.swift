internal import CCrypto

/// Verification of ECDSA P-256 / SHA-256 signatures through OpenSSL's libcrypto.
public enum ECDSAP256 {
    /// Why a public key could not be used.
    public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong, in words.
        public let description: String
    }

    /// A parsed P-256 public key.
    public struct PublicKey: @unchecked Sendable {
        // Invariant: `key` is never mutated after init, and EVP_PKEY is reference counted and
        // safe to use for verification from several threads at once.
        fileprivate let key: Box

        /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`), or a PEM private key from which
        /// the public half is taken (nrfutil's `keys generate` writes private keys).
        ///
        /// The corresponding C functions are `PEM_read_bio_PUBKEY` and `PEM_read_bio_PrivateKey`.
        public init(pem: [UInt8]) throws(KeyError) {
            LibCrypto.prepare()
            guard let parsed = PEMKeyReader.key(pem) else {
                throw KeyError(description: "not a PEM public or private key")
            }
            let box = Box(parsed)
            guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC, EVP_PKEY_get_bits(parsed) == 256 else {
                throw KeyError(description: "not an ECDSA P-256 key")
            }
            key = box
        }
    }

    /// Checks a raw `r‖s` signature (32 + 32 bytes, big-endian each) over `message`.
    ///
    /// The corresponding C functions are `ECDSA_SIG_set0` and `EVP_DigestVerify`.
    public static func verify(signature rs: [UInt8], of message: [UInt8], with key: PublicKey) -> Bool {
        LibCrypto.prepare()
        guard rs.count == 64 else { return false }
        guard let sig = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(sig) }
        let r = rs[0..<32].withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = rs[32..<64].withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        guard let r, let s else {
            BN_free(r); BN_free(s)
            return false
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r); BN_free(s)
            return false
        }
        // DER-encode the signature for EVP_DigestVerify.
        var derPointer: UnsafeMutablePointer<UInt8>? = nil
        let derLength = i2d_ECDSA_SIG(sig, &derPointer)
        guard derLength > 0, let der = derPointer else { return false }
        defer { CRYPTO_free(der, #file, #line) }

        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key.key.pointer) == 1 else {
            ERR_clear_error()
            return false
        }
        let result = message.withUnsafeBufferPointer { m in
            EVP_DigestVerify(ctx, der, Int(derLength), m.baseAddress, m.count)
        }
        ERR_clear_error()
        return result == 1
    }
}

/// Owns one EVP_PKEY and frees it exactly once.
final class Box {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }
}
