/// One type-length-value entry of an MCUboot image's TLV areas.
///
/// The layout follows mcu-tools/mcuboot `boot/bootutil/include/bootutil/image.h`
/// (`struct image_tlv`: a u16 type, a u16 length, little-endian, then the value); imgtool writes
/// the type of its own entries as a byte and a zero pad byte (`scripts/imgtool/image.py`,
/// `TLV.add`), which reads the same.
public struct MCUbootTLV: Sendable, Hashable {
    /// The type, e.g. 0x10 for SHA256.
    public let type: UInt16
    /// The value.
    public let value: [UInt8]
    /// Whether it is in the protected TLV area (covered by the image hash).
    public let isProtected: Bool
    /// Where the value starts in the image.
    public let offset: Int

    /// Makes an entry.
    public init(type: UInt16, value: [UInt8], isProtected: Bool, offset: Int) {
        self.type = type
        self.value = value
        self.isProtected = isProtected
        self.offset = offset
    }

    // The types MCUboot defines (image.h, IMAGE_TLV_*).
    public static let keyHash: UInt16 = 0x01
    public static let publicKey: UInt16 = 0x02
    public static let sha256: UInt16 = 0x10
    public static let sha384: UInt16 = 0x11
    public static let sha512: UInt16 = 0x12
    public static let rsa2048PSS: UInt16 = 0x20
    /// ECDSA P-224; image.h: "Not supported anymore".
    public static let ecdsa224: UInt16 = 0x21
    public static let ecdsaSignature: UInt16 = 0x22
    public static let rsa3072PSS: UInt16 = 0x23
    public static let ed25519: UInt16 = 0x24
    public static let signaturePure: UInt16 = 0x25
    public static let securityCounter: UInt16 = 0x50

    /// MCUboot's name for the type (image.h's `IMAGE_TLV_` names), or `unknown tag 0x…`.
    public var name: String {
        switch type {
        case 0x01: "KEYHASH"
        case 0x02: "PUBKEY"
        case 0x10: "SHA256"
        case 0x11: "SHA384"
        case 0x12: "SHA512"
        case 0x20: "RSA2048_PSS"
        case 0x21: "ECDSA224"
        case 0x22: "ECDSA_SIG"
        case 0x23: "RSA3072_PSS"
        case 0x24: "ED25519"
        case 0x25: "SIG_PURE"
        case 0x30: "ENC_RSA2048"
        case 0x31: "ENC_KW"
        case 0x32: "ENC_EC256"
        case 0x33: "ENC_X25519"
        case 0x34: "ENC_X25519_SHA512"
        case 0x40: "DEPENDENCY"
        case 0x50: "SEC_CNT"
        case 0x60: "BOOT_RECORD"
        case 0x70: "DECOMP_SIZE"
        case 0x71: "DECOMP_SHA"
        case 0x72: "DECOMP_SIGNATURE"
        case 0x73: "COMP_DEC_SIZE"
        case 0x74: "UUID_VID"
        case 0x75: "UUID_CID"
        default: "unknown tag 0x\(String(type, radix: 16))"
        }
    }

    /// The signature kind of a signature TLV, nil for other types.
    public var signatureType: MCUbootSignatureType? { MCUbootSignatureType(tlvType: type) }
}
