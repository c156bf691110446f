internal import CCrypto

/// Reads a PEM key, public or private, into a libcrypto key (`EVP_PKEY`), for the key types that take one.
enum PEMKeyReader {
    /// The key in `pem` (the caller frees it with `EVP_PKEY_free`), or nil when it is neither a public nor a private
    /// key; libcrypto's error queue is left empty either way.
    ///
    /// The corresponding C functions are `PEM_read_bio_PUBKEY` and `PEM_read_bio_PrivateKey`, given a passphrase
    /// callback that has none: an encrypted private key fails at once instead of OpenSSL asking for its passphrase
    /// on the terminal.
    static func key(_ pem: [UInt8]) -> OpaquePointer? {
        let parse = { (readPublic: Bool) -> OpaquePointer? in
            pem.withUnsafeBytes { raw -> OpaquePointer? in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(clamping: raw.count)) else { return nil }
                defer { BIO_free(bio) }
                return readPublic
                    ? PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in -1 }, nil)
                    : PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
            }
        }
        let key = parse(true) ?? parse(false)
        ERR_clear_error()
        return key
    }
}
