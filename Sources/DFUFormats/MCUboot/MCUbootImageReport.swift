public import DFUCrypto

/// Everything `dfu inspect` shows about one MCUboot image, with the verdicts of its checks.
///
/// The checks are MCUboot's own (mcu-tools/mcuboot `boot/bootutil/src/image_validate.c`,
/// `bootutil_img_validate`): the SHA256 TLV must equal the SHA-256 of header, body and protected
/// TLVs (`bootutil_img_hash`); a signature counts only for a key whose hash is in the KEYHASH TLV
/// before it (`bootutil_find_key`: SHA-256 of the key bytes MCUboot embeds), and it is checked
/// over the 32-byte digest (`bootutil_verify_sig` of `image_ecdsa.c`, `image_ed25519.c`,
/// `image_rsa.c`). As `imgtool verify` does, any one signature of the key's kind that verifies
/// is enough.
public struct MCUbootImageReport: Sendable, Hashable {
    /// The image.
    public let image: MCUbootImage
    /// From an nRF Connect SDK package: its manifest entry; nil for a lone image.
    public let manifestEntry: NCSManifest.Entry?
    /// The hash verdict.
    public let hashCheck: MCUbootHashCheck
    /// Whether the KEYHASH (or PUBKEY) TLV names the given key; nil without a key or such a TLV.
    public let keyMatches: Bool?
    /// The kind of the first signature TLV, nil when unsigned.
    public let signatureType: MCUbootSignatureType?
    /// The signature verdict.
    public let signature: SignatureStatus

    /// Checks `image` (and, with `key`, its signature).
    public init(image: MCUbootImage, manifestEntry: NCSManifest.Entry? = nil, key: VerifyingKey? = nil) {
        self.image = image
        self.manifestEntry = manifestEntry
        // MCUboot checks the one hash TLV its build expects (SHA256, or SHA384 with ECDSA P-384,
        // EXPECTED_HASH_TLV in image_validate.c); imgtool writes one of the three. Every hash TLV
        // present is checked here.
        let hashTLVs = image.tlvs.filter { Self.hashTypes.contains($0.type) }
        if image.tlv(MCUbootTLV.signaturePure) != nil {
            hashCheck = .notCheckable(reason: "a SIG_PURE image carries no hash; its signature covers the image itself")
        } else if hashTLVs.isEmpty {
            hashCheck = .notCheckable(reason: "no SHA256, SHA384 or SHA512 TLV")
        } else if image.flags.isEncrypted {
            hashCheck = .notCheckable(reason: "the body is encrypted and the hash covers its plaintext")
        } else {
            let matches = hashTLVs.allSatisfy { tlv in
                switch tlv.type {
                case MCUbootTLV.sha384: tlv.value == SHA384.digest(image.hashedBytes)
                case MCUbootTLV.sha512: tlv.value == SHA512.digest(image.hashedBytes)
                default: tlv.value == SHA256.digest(Array(image.hashedBytes))
                }
            }
            hashCheck = matches ? .matches : .mismatch
        }
        let signatures = image.tlvs.filter { $0.signatureType != nil }
        // ECDSA_SIG is P-256 with a SHA256 TLV and P-384 with a SHA384 one (imgtool's keys/ecdsa.py).
        let firstType = signatures.first?.signatureType
        signatureType = firstType == .ecdsaP256 && image.tlv(MCUbootTLV.sha384) != nil ? .ecdsaP384 : firstType
        guard let key else {
            keyMatches = nil
            signature = signatures.isEmpty ? .unsigned : .notChecked
            return
        }
        let keyBytes = key.mcubootKeyBytes
        if let keyHash = image.keyHash {
            // Hashed with the image's hash algorithm (bootutil_find_key uses bootutil_sha, which
            // is SHA-512 or SHA-384 in builds with those; imgtool's create hashes the key likewise).
            let keyDigest: [UInt8] =
                switch keyHash.count {
                case 64: SHA512.digest(keyBytes[...])
                case 48: SHA384.digest(keyBytes[...])
                default: SHA256.digest(keyBytes)
                }
            keyMatches = !keyHash.isEmpty && keyDigest.starts(with: keyHash)
        } else if let embedded = image.tlv(MCUbootTLV.publicKey)?.value {
            keyMatches = embedded == keyBytes
        } else {
            keyMatches = nil
        }
        signature = Self.verify(image: image, signatures: signatures, key: key, keyMatches: keyMatches)
    }

    private static func verify(image: MCUbootImage, signatures: [MCUbootTLV], key: VerifyingKey, keyMatches: Bool?) -> SignatureStatus {
        guard !signatures.isEmpty else { return .unsigned }
        if image.tlv(MCUbootTLV.signaturePure) != nil {
            return .unverifiable(reason: "a SIG_PURE signature over the whole image is not supported here")
        }
        // The signature covers the hash TLV's digest: SHA-256, or for Ed25519 also SHA-512
        // (image_ed25519.c takes IMAGE_HASH_SIZE bytes, 64 with MCUBOOT_SHA512).
        guard let digest = image.tlvs.first(where: { hashTypes.contains($0.type) })?.value else {
            return .unverifiable(reason: "the image has no hash TLV for the signature to cover")
        }
        let wanted: MCUbootSignatureType =
            switch key.algorithm {
            case .ecdsaP256: .ecdsaP256
            case .ed25519: .ed25519
            case .rsa(let bits): bits == 2048 ? .rsa2048 : .rsa3072
            }
        let candidates = signatures.filter { $0.signatureType == wanted }
        guard !candidates.isEmpty else {
            let found = Set(signatures.compactMap(\.signatureType?.rawValue)).sorted().joined(separator: ", ")
            return .unverifiable(reason: "the image is signed with \(found), the key is \(key.algorithm)")
        }
        guard digest.count == 32 || (wanted == .ed25519 && digest.count == 64) else {
            return .unverifiable(reason: "an \(key.algorithm) signature over a \(digest.count * 8)-bit digest is not supported here")
        }
        let verified = candidates.contains { tlv in
            switch wanted {
            case .ecdsaP256: key.verifyECDSA(signature: tlv.value, digest: digest)
            case .ed25519: key.verifyEd25519(signature: tlv.value, message: digest)
            case .rsa2048, .rsa3072: key.verifyRSAPSS(signature: tlv.value, digest: digest)
            case .ecdsaP224, .ecdsaP384: false
            }
        }
        // MCUboot skips a signature whose KEYHASH names another key.
        return verified && keyMatches != false ? .valid : .invalid
    }

    /// The hash TLV types: SHA256, SHA384, SHA512.
    static let hashTypes: Set<UInt16> = [MCUbootTLV.sha256, MCUbootTLV.sha384, MCUbootTLV.sha512]

    /// The name of the image's file or zip member.
    public var name: String { image.name }

    /// The image index: the manifest's `image_index`, 0 for a lone image.
    public var imageIndex: Int? { manifestEntry == nil ? 0 : manifestEntry?.imageIndex }

    /// Throws the first reason this image must not be sent: a hash mismatch, and with a key, a
    /// signature that is missing, does not verify, or cannot be checked.
    public func check(keyWasGiven: Bool) throws(MCUbootError) {
        if case .mismatch = hashCheck { throw .hashMismatch(name: name) }
        if image.tlv(MCUbootTLV.signaturePure) == nil, !image.tlvs.contains(where: { Self.hashTypes.contains($0.type) }) {
            throw .missingHash(name: name)
        }
        switch signature {
        case .valid, .notChecked: break
        case .invalid: throw .invalidSignature(name: name)
        case .unsigned: if keyWasGiven { throw .unsigned(name: name) }
        case .unverifiable(let reason): if keyWasGiven { throw .unverifiableSignature(name: name, reason: reason) }
        }
    }
}
