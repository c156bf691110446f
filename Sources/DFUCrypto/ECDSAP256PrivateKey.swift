internal import CCrypto

extension ECDSAP256 {
    /// An ECDSA P-256 private (signing) key held by libcrypto: generated, read from and written to
    /// PEM, shown as raw bytes, and used to sign.
    ///
    /// The PEM it writes is the SEC 1 `EC PRIVATE KEY` form (named curve and public point
    /// included, point uncompressed), the form nrfutil's `keys generate` writes through python-ecdsa's
    /// `SigningKey.to_pem`; the public key PEM is `SubjectPublicKeyInfo` with an uncompressed point,
    /// as python-ecdsa's `VerifyingKey.to_pem` writes it.
    public struct PrivateKey: @unchecked Sendable {
        // Invariant: `key` is never mutated after init; EVP_PKEY is reference counted and safe to
        // read and sign with from several threads at once.
        fileprivate let key: Box

        /// A fresh random key. The corresponding C functions are `EVP_PKEY_CTX_new_id`,
        /// `EVP_PKEY_CTX_set_ec_paramgen_curve_nid` and `EVP_PKEY_keygen`.
        public static func generate() throws(KeyError) -> PrivateKey {
            LibCrypto.prepare()
            guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw KeyError(description: "libcrypto cannot make a key") }
            defer { EVP_PKEY_CTX_free(ctx) }
            var made: OpaquePointer? = nil
            guard EVP_PKEY_keygen_init(ctx) == 1,
                EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1) == 1,
                EVP_PKEY_keygen(ctx, &made) == 1, let made
            else {
                ERR_clear_error()
                throw KeyError(description: "libcrypto cannot make a P-256 key")
            }
            return PrivateKey(key: Box(made))
        }

        private init(key: Box) { self.key = key }

        /// Reads a PEM private key (SEC 1 `EC PRIVATE KEY` or PKCS #8 `PRIVATE KEY`) and refuses
        /// anything but an ECDSA P-256 key. The corresponding C function is `PEM_read_bio_PrivateKey`.
        public init(pem: [UInt8]) throws(KeyError) {
            LibCrypto.prepare()
            let parsed = pem.withUnsafeBytes { raw -> OpaquePointer? in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return nil }
                defer { BIO_free(bio) }
                // A passphrase callback that has none: an encrypted key fails at once instead of
                // OpenSSL asking for its passphrase on the terminal.
                return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
            }
            guard let parsed else {
                let encrypted = String(decoding: pem.prefix(4096), as: UTF8.self).contains("ENCRYPTED")
                ERR_clear_error()
                throw KeyError(description: encrypted ? "an encrypted private key (remove the passphrase first)" : "not a PEM private key")
            }
            let box = Box(parsed)
            guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC, EVP_PKEY_get_bits(parsed) == 256,
                Self.curveName(of: parsed) == "prime256v1"
            else {
                throw KeyError(description: "not an ECDSA P-256 key")
            }
            key = box
        }

        /// The private scalar, 32 bytes big-endian. The corresponding C function is `EVP_PKEY_get_bn_param`.
        public var privateBytes: [UInt8] {
            var number: OpaquePointer? = nil
            guard EVP_PKEY_get_bn_param(key.pointer, "priv", &number) == 1, let number else { return [] }
            defer { BN_clear_free(number) }
            var out = [UInt8](repeating: 0, count: 32)
            guard BN_bn2binpad(number, &out, 32) == 32 else { return [] }
            return out
        }

        /// The public point as x‖y, 32 bytes big-endian each.
        /// The corresponding C function is `EVP_PKEY_get_octet_string_param` ("encoded-pub-key").
        public var publicBytes: [UInt8] {
            var out = [UInt8](repeating: 0, count: 65)
            var length = 0
            guard EVP_PKEY_get_octet_string_param(key.pointer, "encoded-pub-key", &out, 65, &length) == 1,
                length == 65, out[0] == 0x04
            else { return [] }
            return Array(out[1...])
        }

        /// The key as SEC 1 PEM (`-----BEGIN EC PRIVATE KEY-----`), base64 in 76-column lines as
        /// python-ecdsa's `der.topem` writes it. The corresponding C function is `i2d_PrivateKey`.
        public func privatePEM() -> [UInt8] {
            var der: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_PrivateKey(key.pointer, &der)
            return Self.pem(label: "EC PRIVATE KEY", der: der, length: length)
        }

        /// The public half as PEM (`-----BEGIN PUBLIC KEY-----`), 76-column lines.
        /// The corresponding C functions are `i2d_PUBKEY` and `EVP_EncodeBlock`.
        public func publicPEM() -> [UInt8] {
            var der: UnsafeMutablePointer<UInt8>? = nil
            let length = i2d_PUBKEY(key.pointer, &der)
            return Self.pem(label: "PUBLIC KEY", der: der, length: length)
        }

        private static func pem(label: String, der: UnsafeMutablePointer<UInt8>?, length: Int32) -> [UInt8] {
            guard length > 0, let der else { return [] }
            defer { CRYPTO_free(der, #file, #line) }
            // Base64 without line breaks (EVP_EncodeBlock), cut into python-ecdsa's 76-column lines below.
            var base64 = [UInt8](repeating: 0, count: (Int(length) + 2) / 3 * 4 + 1)
            let written = EVP_EncodeBlock(&base64, der, length)
            let encoded = String(decoding: base64.prefix(Int(max(written, 0))), as: UTF8.self)
            var text = "-----BEGIN \(label)-----\n"
            var start = encoded.startIndex
            while start < encoded.endIndex {
                let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
                text += encoded[start..<end] + "\n"
                start = end
            }
            return Array((text + "-----END \(label)-----\n").utf8)
        }

        /// The public half, for ``ECDSAP256/verify(signature:of:with:)``.
        public var publicKey: PublicKey {
            get throws(KeyError) { try PublicKey(pem: publicPEM()) }
        }

        /// Signs `message` with SHA-256 and returns r‖s, 32 bytes big-endian each (a random nonce:
        /// every call gives another valid signature).
        ///
        /// The corresponding C functions are `EVP_DigestSign` and `d2i_ECDSA_SIG`.
        public func sign(_ message: [UInt8]) throws(KeyError) -> [UInt8] {
            guard let ctx = EVP_MD_CTX_new() else { throw KeyError(description: "libcrypto cannot sign") }
            defer { EVP_MD_CTX_free(ctx) }
            guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key.pointer) == 1 else {
                ERR_clear_error()
                throw KeyError(description: "libcrypto cannot sign with this key")
            }
            var der = [UInt8](repeating: 0, count: 80)
            var length = der.count
            let signed = message.withUnsafeBufferPointer { m in
                EVP_DigestSign(ctx, &der, &length, m.baseAddress, m.count)
            }
            guard signed == 1 else {
                ERR_clear_error()
                throw KeyError(description: "libcrypto failed to sign")
            }
            let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_ECDSA_SIG(nil, &cursor, length)
            }
            guard let parsed else { throw KeyError(description: "libcrypto returned an unreadable signature") }
            defer { ECDSA_SIG_free(parsed) }
            var r = [UInt8](repeating: 0, count: 32)
            var s = [UInt8](repeating: 0, count: 32)
            guard let rNumber = ECDSA_SIG_get0_r(parsed), let sNumber = ECDSA_SIG_get0_s(parsed),
                BN_bn2binpad(rNumber, &r, 32) == 32, BN_bn2binpad(sNumber, &s, 32) == 32
            else { throw KeyError(description: "libcrypto returned an oversized signature") }
            return r + s
        }

        private static func curveName(of key: OpaquePointer) -> String {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_utf8_string_param(key, "group", &name, name.count, &length) == 1 else { return "" }
            return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
