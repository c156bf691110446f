import DFUCrypto

/// What `dfu inspect` shows about one part: sizes, checksums, the decoded init packet and checks.
public struct PartReport: Sendable, Hashable {
    /// The part, with its image and init packet bytes.
    public let part: FirmwarePart
    /// The image's CRC-32 (what Secure DFU's Calculate Checksum reports at the end), computed when asked:
    /// `dfu inspect` shows it, an upload never reads it (the engine checks each object's CRC as it goes).
    public var crc32: UInt32 { CRC32.checksum(part.image) }
    /// The image's CRC-16/CCITT-FALSE (what Legacy init packets carry), computed when asked: a pass over the
    /// whole image that an upload does not need (a Legacy init packet's CRC is checked where it is decoded).
    public var crc16: UInt16 { CRC16.checksum(part.image) }
    /// The image's SHA-256, most significant byte first.
    public let sha256: [UInt8]
    /// The decoded init packet.
    public let initPacket: InitPacketContents
    /// Whether the init packet's digest matches the image.
    public let imageCheck: ImageCheck
    /// What is known about the init packet's signature.
    public let signature: SignatureStatus
    /// What is known about the ECDSA signatures in the init packet's `boot_validation` entries,
    /// which the bootloader checks at every boot: `.unsigned` when there are none.
    public let bootValidationSignature: SignatureStatus

    /// Makes a report from computed values.
    public init(
        part: FirmwarePart, sha256: [UInt8], initPacket: InitPacketContents,
        imageCheck: ImageCheck, signature: SignatureStatus, bootValidationSignature: SignatureStatus = .unsigned
    ) {
        self.part = part
        self.sha256 = sha256
        self.initPacket = initPacket
        self.imageCheck = imageCheck
        self.signature = signature
        self.bootValidationSignature = bootValidationSignature
    }

    /// What the part replaces.
    public var kind: PartKind { part.kind }
    /// The image's entry name.
    public var imageName: String { part.imageName }
    /// The image size in bytes.
    public var imageSize: Int { part.image.count }
    /// The init packet's entry name, nil when there is none.
    public var initPacketName: String? { part.initPacketName }
    /// The init packet size in bytes (0 when there is none).
    public var initPacketSize: Int { part.initPacket.count }
    /// The SoftDevice size inside the image (0 when none).
    public var softdeviceSize: UInt32 { part.softdeviceSize }
    /// The bootloader size inside the image (0 when none).
    public var bootloaderSize: UInt32 { part.bootloaderSize }
    /// The SHA-256 as lowercase hex, as printed by `sha256sum`.
    public var sha256Hex: String { sha256.hexString }
}

extension Sequence<UInt8> {
    /// Lowercase hex, two digits per byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
