/// The signature TLVs MCUboot knows (mcu-tools/mcuboot `boot/bootutil/include/bootutil/image.h`),
/// each a signature over the image's SHA-256 digest.
public enum MCUbootSignatureType: String, Sendable, Hashable {
    /// 0x22 `ECDSA_SIG`: DER ECDSA, P-256 with SHA-256 (P-384 goes with a SHA384 hash TLV).
    case ecdsaP256 = "ecdsa-p256"
    /// 0x22 `ECDSA_SIG` in an image with a SHA384 TLV: ECDSA P-384 (not verified here).
    case ecdsaP384 = "ecdsa-p384"
    /// 0x21 `ECDSA224`: no longer supported by MCUboot; shown, never verified.
    case ecdsaP224 = "ecdsa-p224"
    /// 0x24 `ED25519`: Ed25519 over the 32-byte digest.
    case ed25519 = "ed25519"
    /// 0x20 `RSA2048_PSS`.
    case rsa2048 = "rsa-2048"
    /// 0x23 `RSA3072_PSS`.
    case rsa3072 = "rsa-3072"

    /// The kind of a signature TLV type, nil for other types.
    public init?(tlvType: UInt16) {
        switch tlvType {
        case MCUbootTLV.ecdsaSignature: self = .ecdsaP256
        case MCUbootTLV.ecdsa224: self = .ecdsaP224
        case MCUbootTLV.ed25519: self = .ed25519
        case MCUbootTLV.rsa2048PSS: self = .rsa2048
        case MCUbootTLV.rsa3072PSS: self = .rsa3072
        default: return nil
        }
    }
}
