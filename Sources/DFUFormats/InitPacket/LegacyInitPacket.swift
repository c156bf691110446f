/// A decoded Legacy DFU init packet (`.dat` of nrfutil 0.5.x / adafruit-nrfutil packages).
///
/// Two shapes exist. SDK ≤ 6 bootloaders take just the image's CRC-16 (2 bytes). SDK 7+ take
/// the *extended* packet, all little-endian:
///
/// | field | size | layout |
/// |---|---|---|
/// | device type | u16 | all |
/// | device revision | u16 | all |
/// | application version | u32 | all |
/// | SoftDevice count n | u16 | all |
/// | SoftDevice firmware IDs | u16 × n | all |
/// | extension id | u32 | DFU version ≥ 0.6 |
/// | CRC-16 | u16 | 0.5, or extension 0 |
/// | image length, SHA-256 | u32 + 32 | extension 1 (0.7) and 2 (0.8) |
/// | ECDSA P-256 signature | 64 | extension 2 (0.8) |
public struct LegacyInitPacket: Sendable, Hashable {
    /// The extended header fields; nil for a CRC-only packet.
    public let header: Header?
    /// The extension id (DFU version ≥ 0.6 layouts only).
    public let extensionID: UInt32?
    /// What the packet uses to check the image.
    public let integrity: Integrity

    /// Makes a packet model from decoded parts.
    public init(header: Header?, extensionID: UInt32?, integrity: Integrity) {
        self.header = header
        self.extensionID = extensionID
        self.integrity = integrity
    }

    /// The fields an extended packet starts with.
    public struct Header: Sendable, Hashable {
        /// Device type (0xFFFF = any).
        public let deviceType: UInt16
        /// Device revision (0xFFFF = any).
        public let deviceRevision: UInt16
        /// Application version (0xFFFFFFFF = any).
        public let applicationVersion: UInt32
        /// The SoftDevice firmware IDs the image accepts (0xFFFE = any).
        public let softdeviceRequirements: [UInt16]

        /// Makes a header.
        public init(deviceType: UInt16, deviceRevision: UInt16, applicationVersion: UInt32, softdeviceRequirements: [UInt16]) {
            self.deviceType = deviceType
            self.deviceRevision = deviceRevision
            self.applicationVersion = applicationVersion
            self.softdeviceRequirements = softdeviceRequirements
        }
    }

    /// How the image is checked.
    public enum Integrity: Sendable, Hashable {
        /// CRC-16/CCITT-FALSE of the image.
        case crc16(UInt16)
        /// Image length and SHA-256 (extension 1); nrfutil 0.5.x stores the digest in plain order.
        case sha256(length: UInt32, hash: [UInt8])
        /// Image length, SHA-256 and an ECDSA P-256 signature (extension 2), r‖s big-endian,
        /// over every byte of the packet before it.
        case signedSHA256(length: UInt32, hash: [UInt8], signature: [UInt8])
    }

    /// Decodes a `.dat`; `dfuVersion` is the manifest's `dfu_version` when known.
    ///
    /// Two bytes are a CRC-only packet. Otherwise the extended layout is read: with a DFU version
    /// below 0.6 it ends in a CRC-16; from 0.6 an extension id follows the SoftDevice list; with
    /// no version the layout is inferred (exactly 2 bytes after the list: 0.5, else an extension id).
    public init(bytes: [UInt8], dfuVersion: Double?) throws(InitPacketDefect) {
        guard !bytes.isEmpty else { throw .empty }
        var reader = ByteReader(bytes)
        if bytes.count == 2, let crc = reader.readInteger(as: UInt16.self) {
            self.init(header: nil, extensionID: nil, integrity: .crc16(crc))
            return
        }
        guard let deviceType = reader.readInteger(as: UInt16.self),
            let deviceRevision = reader.readInteger(as: UInt16.self),
            let applicationVersion = reader.readInteger(as: UInt32.self),
            let count = reader.readInteger(as: UInt16.self)
        else { throw .tooShort(size: bytes.count, needed: 14) }
        var requirements: [UInt16] = []
        for _ in 0..<count {
            guard let id = reader.readInteger(as: UInt16.self) else {
                throw .tooShort(size: bytes.count, needed: 10 + 2 * Int(count) + 2)
            }
            requirements.append(id)
        }
        let header = Header(
            deviceType: deviceType, deviceRevision: deviceRevision, applicationVersion: applicationVersion,
            softdeviceRequirements: requirements)
        let headerSize = reader.bytesRead

        let hasExtension: Bool =
            if let dfuVersion { dfuVersion >= 0.6 } else { reader.readableBytes != 2 }
        var extensionID: UInt32? = nil
        let integrity: Integrity
        if hasExtension {
            guard let id = reader.readInteger(as: UInt32.self) else { throw .tooShort(size: bytes.count, needed: headerSize + 6) }
            extensionID = id
            switch id {
            case 0:
                guard let crc = reader.readInteger(as: UInt16.self) else { throw .tooShort(size: bytes.count, needed: headerSize + 6) }
                integrity = .crc16(crc)
            case 1, 2:
                let needed = headerSize + 4 + 4 + 32 + (id == 2 ? 64 : 0)
                guard let length = reader.readInteger(as: UInt32.self), let hash = reader.readBytes(length: 32) else {
                    throw .tooShort(size: bytes.count, needed: needed)
                }
                if id == 1 {
                    integrity = .sha256(length: length, hash: hash)
                } else {
                    guard let signature = reader.readBytes(length: 64) else { throw .tooShort(size: bytes.count, needed: needed) }
                    integrity = .signedSHA256(length: length, hash: hash, signature: signature)
                }
            default:
                throw .unknownExtension(id)
            }
        } else {
            guard let crc = reader.readInteger(as: UInt16.self) else { throw .tooShort(size: bytes.count, needed: headerSize + 2) }
            integrity = .crc16(crc)
        }
        guard reader.readableBytes == 0 else { throw .trailingBytes(count: reader.readableBytes) }
        self.init(header: header, extensionID: extensionID, integrity: integrity)
    }
}
