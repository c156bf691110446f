public import DFUFormats

/// The fields of a Secure DFU init packet (`dfu-cc.proto`) the simulated bootloader checks;
/// also builds init packets for tests.
public struct SecureInitCommand: Sendable, Hashable {
    /// Firmware type (FwType).
    public enum FirmwareType: UInt64, Sendable, Hashable {
        /// APPLICATION = 0.
        case application = 0
        /// SOFTDEVICE = 1.
        case softdevice = 1
        /// BOOTLOADER = 2.
        case bootloader = 2
        /// SOFTDEVICE_BOOTLOADER = 3.
        case softdeviceBootloader = 3
        /// EXTERNAL_APPLICATION = 4.
        case externalApplication = 4

        /// The type for a part kind.
        public init(_ kind: PartKind) {
            switch kind {
            case .application: self = .application
            case .softdevice: self = .softdevice
            case .bootloader: self = .bootloader
            case .softdeviceBootloader: self = .softdeviceBootloader
            }
        }
    }

    /// Hash type (HashType).
    public enum HashType: UInt64, Sendable, Hashable {
        /// NO_HASH.
        case none = 0
        /// CRC (CRC-32, little-endian).
        case crc = 1
        /// SHA128.
        case sha128 = 2
        /// SHA256 (stored byte-reversed by nrfutil).
        case sha256 = 3
        /// SHA512.
        case sha512 = 4
    }

    /// fw_version.
    public var firmwareVersion: UInt32 = 1
    /// hw_version.
    public var hardwareVersion: UInt32 = 52
    /// sd_req.
    public var softdeviceRequirements: [UInt32] = [0x0100]
    /// type.
    public var type: FirmwareType = .application
    /// sd_size.
    public var softdeviceSize: UInt32 = 0
    /// bl_size.
    public var bootloaderSize: UInt32 = 0
    /// app_size.
    public var applicationSize: UInt32 = 0
    /// hash.hash_type.
    public var hashType: HashType = .sha256
    /// hash.hash.
    public var hash: [UInt8] = []
    /// is_debug.
    public var isDebug = false
    /// The signature type, when the packet is a SignedCommand.
    public var signatureType: UInt64?
    /// The signature, when the packet is a SignedCommand.
    public var signature: [UInt8]?
    /// op_code of the Command as decoded (1 = INIT; the encoder writes INIT).
    public var opCode: UInt64 = 1

    /// An init command for `image` of `kind`, with its SHA-256 stored byte-reversed as nrfutil does.
    public init(kind: PartKind, image: [UInt8], firmwareVersion: UInt32 = 1, hardwareVersion: UInt32 = 52,
                softdeviceRequirements: [UInt32] = [0x0100], softdeviceSize sdSize: UInt32? = nil,
                bootloaderSize blSize: UInt32? = nil, hash: [UInt8]) {
        type = FirmwareType(kind)
        self.firmwareVersion = firmwareVersion
        self.hardwareVersion = hardwareVersion
        self.softdeviceRequirements = softdeviceRequirements
        let size = UInt32(image.count)
        switch kind {
        case .application: applicationSize = size
        case .softdevice: softdeviceSize = size
        case .bootloader: bootloaderSize = size
        case .softdeviceBootloader:
            softdeviceSize = sdSize ?? size / 2
            bootloaderSize = blSize ?? size - (sdSize ?? size / 2)
        }
        self.hash = hash
    }

    /// Decodes an init packet (`Packet` with a `Command` or a `SignedCommand`) with the core's
    /// decoder, as a bootloader would; nil when malformed or when it holds no init command.
    public init?(packet: [UInt8]) {
        guard let decoded = try? SecureInitPacket(bytes: packet), let command = decoded.initCommand else { return nil }
        opCode = UInt64(decoded.opCode?.rawValue ?? 0)
        firmwareVersion = command.firmwareVersion ?? 0
        hardwareVersion = command.hardwareVersion ?? 0
        softdeviceRequirements = command.softdeviceRequirements
        guard let parsedType = FirmwareType(rawValue: UInt64(command.firmwareType?.rawValue ?? 0)) else { return nil }
        type = parsedType
        softdeviceSize = command.softdeviceSize ?? 0
        bootloaderSize = command.bootloaderSize ?? 0
        applicationSize = command.applicationSize ?? 0
        hashType = command.hash.flatMap { HashType(rawValue: UInt64($0.type.rawValue)) } ?? .none
        hash = command.hash?.bytes ?? []
        isDebug = command.isDebug
        signatureType = decoded.signature.map { UInt64($0.type.rawValue) }
        signature = decoded.signature?.bytes
    }

    /// The total image size the init command announces.
    public var imageSize: Int { Int(softdeviceSize) + Int(bootloaderSize) + Int(applicationSize) }

    /// Encodes the packet with the core's encoder (as `dfu pkg generate` writes it): an unsigned `Packet{command}`, or a
    /// `SignedCommand` when a signature is set. Sizes of zero are left out, as nrfutil leaves out the parts it has not.
    public var packet: [UInt8] {
        let command = SecureInitPacket.InitCommand(
            firmwareVersion: firmwareVersion, hardwareVersion: hardwareVersion, softdeviceRequirements: softdeviceRequirements,
            firmwareType: SecureInitPacket.FirmwareType(rawValue: UInt32(truncatingIfNeeded: type.rawValue)),
            softdeviceSize: softdeviceSize > 0 ? softdeviceSize : nil, bootloaderSize: bootloaderSize > 0 ? bootloaderSize : nil,
            applicationSize: applicationSize > 0 ? applicationSize : nil,
            hash: SecureInitPacket.Hash(type: SecureInitPacket.HashType(rawValue: UInt32(truncatingIfNeeded: hashType.rawValue)), bytes: hash),
            isDebug: isDebug)
        let signed = signature.map {
            SecureInitPacket.Signature(type: SecureInitPacket.SignatureType(rawValue: UInt32(truncatingIfNeeded: signatureType ?? 0)), bytes: $0)
        }
        return SecureInitPacketEncoder.packet(initCommand: SecureInitPacketEncoder.initCommandBytes(command), signature: signed)
    }
}
