internal import CCrypto

/// A public key of one of the kinds MCUboot images are signed with — ECDSA P-256, Ed25519,
/// RSA-2048 or RSA-3072 — held by libcrypto, and the three ways MCUboot checks a signature over
/// an image's 32-byte SHA-256 digest.
///
/// What MCUboot does, in mcu-tools/mcuboot: `boot/bootutil/src/image_ecdsa.c`
/// (`bootutil_verify_sig`: a DER ECDSA signature over the digest), `image_ed25519.c`
/// (`bootutil_verify_sig`: Ed25519 with the 32-byte digest as the message) and `image_rsa.c`
/// (`bootutil_cmp_rsasig`: RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt).
public struct VerifyingKey: @unchecked Sendable {
    // Invariant: `key` is never mutated after init; EVP_PKEY is reference counted and safe to
    // verify with from several threads at once.
    private let key: Box

    /// The kind of key.
    public enum Algorithm: Sendable, Hashable, CustomStringConvertible {
        case ecdsaP256
        case ed25519
        /// RSA with a modulus of this many bits.
        case rsa(bits: Int)

        /// E.g. `ECDSA P-256`, `RSA-2048`.
        public var description: String {
            switch self {
            case .ecdsaP256: "ECDSA P-256"
            case .ed25519: "Ed25519"
            case .rsa(let bits): "RSA-\(bits)"
            }
        }
    }

    /// What the key is.
    public let algorithm: Algorithm

    /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`, as `imgtool getpub --encoding pem`
    /// writes it) or a PEM private key whose public half is taken (`imgtool keygen` writes
    /// those). Refuses other kinds of key and other curves.
    ///
    /// The corresponding C functions are `PEM_read_bio_PUBKEY` and `PEM_read_bio_PrivateKey`.
    public init(pem: [UInt8]) throws(ECDSAP256.KeyError) {
        LibCrypto.prepare()
        guard let parsed = PEMKeyReader.key(pem) else {
            throw ECDSAP256.KeyError(description: "not a PEM public or private key")
        }
        let box = Box(parsed)
        let bits = Int(EVP_PKEY_get_bits(parsed))
        switch EVP_PKEY_get_base_id(parsed) {
        case EVP_PKEY_EC:
            guard bits == 256, Self.groupName(of: parsed) == "prime256v1" else {
                throw ECDSAP256.KeyError(description: "an EC key on a curve other than P-256")
            }
            algorithm = .ecdsaP256
        case EVP_PKEY_ED25519:
            algorithm = .ed25519
        case EVP_PKEY_RSA:
            guard bits == 2048 || bits == 3072 else {
                throw ECDSAP256.KeyError(description: "an RSA key of \(bits) bits (MCUboot signs with 2048 or 3072)")
            }
            algorithm = .rsa(bits: bits)
        default:
            throw ECDSAP256.KeyError(description: "not an ECDSA P-256, Ed25519 or RSA key")
        }
        key = box
    }

    /// The public key's bytes as MCUboot embeds them and hashes them into the `KEYHASH` TLV
    /// (mcuboot `boot/bootutil/src/bootutil_find_key.c`, `bootutil_find_key`; imgtool's
    /// `get_public_bytes` in `scripts/imgtool/keys/`): DER `SubjectPublicKeyInfo` for ECDSA and
    /// Ed25519, DER PKCS #1 `RSAPublicKey` for RSA.
    ///
    /// The corresponding C functions are `i2d_PUBKEY` and, for RSA, `i2d_PublicKey`.
    public var mcubootKeyBytes: [UInt8] {
        var pointer: UnsafeMutablePointer<UInt8>? = nil
        let length: Int32
        if case .rsa = algorithm {
            length = i2d_PublicKey(key.pointer, &pointer)
        } else {
            length = i2d_PUBKEY(key.pointer, &pointer)
        }
        guard length > 0, let pointer else {
            ERR_clear_error()
            return []
        }
        defer { CRYPTO_free(pointer, #file, #line) }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
    }

    /// Checks a DER ECDSA signature over a 32-byte digest (the digest is the message's SHA-256;
    /// it is not hashed again). Zero bytes after the DER sequence are ignored: imgtool's
    /// `--pad-sig` adds them for MCUboot older than 1.5, and its own `verify` drops them.
    ///
    /// The corresponding C functions are `EVP_PKEY_verify_init` and `EVP_PKEY_verify`.
    public func verifyECDSA(signature: [UInt8], digest: [UInt8]) -> Bool {
        guard algorithm == .ecdsaP256, digest.count == 32, signature.count >= 2, signature[0] == 0x30,
            signature[1] < 0x80
        else { return false }
        let length = Int(signature[1]) + 2
        guard length <= signature.count, signature[length...].allSatisfy({ $0 == 0 }) else { return false }
        let der = Array(signature[..<length])
        return verifyDigest(signature: der, digest: digest) { _ in true }
    }

    /// Checks an RSASSA-PSS signature over a 32-byte SHA-256 digest, with MGF1-SHA-256 and a
    /// 32-byte salt, the only parameters MCUboot accepts (`image_rsa.c`, `PSS_SLEN`).
    ///
    /// The corresponding C functions are `EVP_PKEY_CTX_set_rsa_padding`,
    /// `EVP_PKEY_CTX_set_rsa_pss_saltlen`, `EVP_PKEY_CTX_set_rsa_mgf1_md` and `EVP_PKEY_verify`.
    public func verifyRSAPSS(signature: [UInt8], digest: [UInt8]) -> Bool {
        guard case .rsa(let bits) = algorithm, signature.count == bits / 8, digest.count == 32 else { return false }
        return verifyDigest(signature: signature, digest: digest) { ctx in
            EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 32) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, EVP_sha256()) == 1
        }
    }

    /// Checks a 64-byte Ed25519 signature whose message is `message` (for MCUboot images, the
    /// 32-byte digest itself).
    ///
    /// The corresponding C functions are `EVP_DigestVerifyInit` (no digest: Ed25519 hashes
    /// internally) and `EVP_DigestVerify`.
    public func verifyEd25519(signature: [UInt8], message: [UInt8]) -> Bool {
        guard algorithm == .ed25519, signature.count == 64 else { return false }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        defer { ERR_clear_error() }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key.pointer) == 1 else { return false }
        return signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                EVP_DigestVerify(ctx, s.baseAddress, s.count, m.baseAddress, m.count) == 1
            }
        }
    }

    /// `EVP_PKEY_verify` over a digest made with SHA-256, after `configure` sets the padding.
    private func verifyDigest(signature: [UInt8], digest: [UInt8], configure: (OpaquePointer) -> Bool) -> Bool {
        guard let ctx = EVP_PKEY_CTX_new(key.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        defer { ERR_clear_error() }
        guard EVP_PKEY_verify_init(ctx) == 1, configure(ctx), EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 else {
            return false
        }
        return signature.withUnsafeBufferPointer { s in
            digest.withUnsafeBufferPointer { d in
                EVP_PKEY_verify(ctx, s.baseAddress, s.count, d.baseAddress, d.count) == 1
            }
        }
    }

    private static func groupName(of key: OpaquePointer) -> String {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key, "group", &name, name.count, &length) == 1 else { return "" }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
