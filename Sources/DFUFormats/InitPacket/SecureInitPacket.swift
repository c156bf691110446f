/// A decoded Secure DFU init packet (`.dat`): the protobuf `Packet` of Nordic's `dfu-cc.proto`.
///
/// The packet holds either a plain `Command` or a `SignedCommand` (command + signature). For an
/// update the command is `INIT` with an ``InitCommand`` describing the image. The packet is still
/// sent verbatim; this model exists for checks and for `dfu inspect`.
public struct SecureInitPacket: Sendable, Hashable {
    /// The command's operation (`op_code`), nil when the field is absent.
    public let opCode: OpCode?
    /// The init command (`Command.init`), nil for a reset command or when absent.
    public let initCommand: InitCommand?
    /// The bytes of the serialized `InitCommand` exactly as they appear in the packet: what
    /// nrfutil signs, and what a bootloader verifies the signature over.
    public let initCommandBytes: [UInt8]
    /// The signature, nil for an unsigned packet (`Packet.command`).
    public let signature: Signature?
    /// The timeout of a reset command (`Command.reset.timeout`), nil otherwise.
    public let resetTimeout: UInt32?

    /// Makes a packet model from decoded parts.
    public init(
        opCode: OpCode?, initCommand: InitCommand?, initCommandBytes: [UInt8], signature: Signature?,
        resetTimeout: UInt32? = nil
    ) {
        self.opCode = opCode
        self.initCommand = initCommand
        self.initCommandBytes = initCommandBytes
        self.signature = signature
        self.resetTimeout = resetTimeout
    }

    /// The fields of `InitCommand`; proto2 optional fields that were absent are nil.
    public struct InitCommand: Sendable, Hashable {
        /// `fw_version` (1).
        public var firmwareVersion: UInt32?
        /// `hw_version` (2).
        public var hardwareVersion: UInt32?
        /// `sd_req` (3): the SoftDevice firmware IDs the image accepts; packed or not on the wire.
        public var softdeviceRequirements: [UInt32]
        /// `type` (4).
        public var firmwareType: FirmwareType?
        /// `sd_size` (5).
        public var softdeviceSize: UInt32?
        /// `bl_size` (6).
        public var bootloaderSize: UInt32?
        /// `app_size` (7).
        public var applicationSize: UInt32?
        /// `hash` (8).
        public var hash: Hash?
        /// `is_debug` (9).
        public var isDebug: Bool
        /// `boot_validation` (10), newer packets only.
        public var bootValidations: [BootValidation]

        /// Makes an init command; every field defaults to absent.
        public init(
            firmwareVersion: UInt32? = nil, hardwareVersion: UInt32? = nil, softdeviceRequirements: [UInt32] = [],
            firmwareType: FirmwareType? = nil, softdeviceSize: UInt32? = nil, bootloaderSize: UInt32? = nil,
            applicationSize: UInt32? = nil, hash: Hash? = nil, isDebug: Bool = false,
            bootValidations: [BootValidation] = []
        ) {
            self.firmwareVersion = firmwareVersion
            self.hardwareVersion = hardwareVersion
            self.softdeviceRequirements = softdeviceRequirements
            self.firmwareType = firmwareType
            self.softdeviceSize = softdeviceSize
            self.bootloaderSize = bootloaderSize
            self.applicationSize = applicationSize
            self.hash = hash
            self.isDebug = isDebug
            self.bootValidations = bootValidations
        }
    }

    /// `Hash`: a digest of the image and its kind.
    public struct Hash: Sendable, Hashable {
        /// `hash_type` (1).
        public let type: HashType
        /// `hash` (2), as stored (nrfutil stores SHA-256 byte-reversed).
        public let bytes: [UInt8]

        /// Makes a hash.
        public init(type: HashType, bytes: [UInt8]) {
            self.type = type
            self.bytes = bytes
        }
    }

    /// `BootValidation`: how the bootloader checks the image at each boot.
    public struct BootValidation: Sendable, Hashable {
        /// `type` (1).
        public let type: ValidationType
        /// `bytes` (2): a CRC, digest or signature, depending on the type; empty for a generated CRC.
        public let bytes: [UInt8]

        /// Makes a boot validation.
        public init(type: ValidationType, bytes: [UInt8]) {
            self.type = type
            self.bytes = bytes
        }
    }

    /// The signature of a `SignedCommand`.
    public struct Signature: Sendable, Hashable {
        /// `signature_type` (2).
        public let type: SignatureType
        /// `signature` (3), as stored: for ECDSA, r then s, each 32 bytes little-endian.
        public let bytes: [UInt8]

        /// Makes a signature.
        public init(type: SignatureType, bytes: [UInt8]) {
            self.type = type
            self.bytes = bytes
        }

        /// For ECDSA P-256, the signature as r‖s big-endian (each half reversed), as libcrypto wants it.
        public var bigEndianRS: [UInt8] {
            guard bytes.count == 64 else { return bytes }
            return Array(bytes[0..<32].reversed()) + Array(bytes[32..<64].reversed())
        }
    }

    /// `OpCode`: what a command asks for.
    public struct OpCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The wire value.
        public let rawValue: UInt32
        /// Wraps a wire value, known or not.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `RESET` (0).
        public static let reset = OpCode(rawValue: 0)
        /// `INIT` (1).
        public static let `init` = OpCode(rawValue: 1)
        /// The proto name, or the number for unknown values.
        public var description: String { ["RESET", "INIT"].name(at: rawValue) }
    }

    /// `FwType`: what the image replaces.
    public struct FirmwareType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The wire value.
        public let rawValue: UInt32
        /// Wraps a wire value, known or not.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `APPLICATION` (0).
        public static let application = FirmwareType(rawValue: 0)
        /// `SOFTDEVICE` (1).
        public static let softdevice = FirmwareType(rawValue: 1)
        /// `BOOTLOADER` (2).
        public static let bootloader = FirmwareType(rawValue: 2)
        /// `SOFTDEVICE_BOOTLOADER` (3).
        public static let softdeviceBootloader = FirmwareType(rawValue: 3)
        /// `EXTERNAL_APPLICATION` (4).
        public static let externalApplication = FirmwareType(rawValue: 4)

        /// The type that matches a package part.
        public init(_ kind: PartKind) {
            switch kind {
            case .application: self = .application
            case .softdevice: self = .softdevice
            case .bootloader: self = .bootloader
            case .softdeviceBootloader: self = .softdeviceBootloader
            }
        }

        /// The proto name, or the number for unknown values.
        public var description: String {
            ["APPLICATION", "SOFTDEVICE", "BOOTLOADER", "SOFTDEVICE_BOOTLOADER", "EXTERNAL_APPLICATION"].name(at: rawValue)
        }
    }

    /// `HashType`: which digest `Hash.hash` holds.
    public struct HashType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The wire value.
        public let rawValue: UInt32
        /// Wraps a wire value, known or not.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `NO_HASH` (0).
        public static let noHash = HashType(rawValue: 0)
        /// `CRC` (1): a CRC-32 of the image.
        public static let crc = HashType(rawValue: 1)
        /// `SHA128` (2).
        public static let sha128 = HashType(rawValue: 2)
        /// `SHA256` (3).
        public static let sha256 = HashType(rawValue: 3)
        /// `SHA512` (4).
        public static let sha512 = HashType(rawValue: 4)
        /// The proto name, or the number for unknown values.
        public var description: String { ["NO_HASH", "CRC", "SHA128", "SHA256", "SHA512"].name(at: rawValue) }
    }

    /// `SignatureType`: the signature scheme.
    public struct SignatureType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The wire value.
        public let rawValue: UInt32
        /// Wraps a wire value, known or not.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `ECDSA_P256_SHA256` (0).
        public static let ecdsaP256SHA256 = SignatureType(rawValue: 0)
        /// `ED25519` (1).
        public static let ed25519 = SignatureType(rawValue: 1)
        /// The proto name, or the number for unknown values.
        public var description: String { ["ECDSA_P256_SHA256", "ED25519"].name(at: rawValue) }
    }

    /// `ValidationType`: how the bootloader validates the image at boot.
    public struct ValidationType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The wire value.
        public let rawValue: UInt32
        /// Wraps a wire value, known or not.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `NO_VALIDATION` (0).
        public static let noValidation = ValidationType(rawValue: 0)
        /// `VALIDATE_GENERATED_CRC` (1).
        public static let generatedCRC = ValidationType(rawValue: 1)
        /// `VALIDATE_SHA256` (2).
        public static let sha256 = ValidationType(rawValue: 2)
        /// `VALIDATE_ECDSA_P256_SHA256` (3).
        public static let ecdsaP256SHA256 = ValidationType(rawValue: 3)
        /// The proto name, or the number for unknown values.
        public var description: String {
            ["NO_VALIDATION", "VALIDATE_GENERATED_CRC", "VALIDATE_SHA256", "VALIDATE_ECDSA_P256_SHA256"].name(at: rawValue)
        }
    }
}

extension [String] {
    /// The name at `index`, or the number itself when out of range.
    fileprivate func name(at index: UInt32) -> String {
        Int(exactly: index).flatMap { $0 < count ? self[$0] : nil } ?? String(index)
    }
}
