/// JSON for one part of `dfu inspect --json` (see ``PackageReport``'s encoding).
extension PartReport: Encodable {
    private enum Keys: String, CodingKey {
        case type, binFile = "bin_file", binSize = "bin_size", binCRC32 = "bin_crc32", binCRC16 = "bin_crc16_ccitt"
        case binSHA256 = "bin_sha256", datFile = "dat_file", datSize = "dat_size", sdSize = "sd_size", blSize = "bl_size"
        case initPacket = "init", hashCheck = "hash_check", signature, bootValidationSignature = "boot_validation_signature"
    }

    /// Encodes the part's report.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(kind.rawValue, forKey: .type)
        try container.encode(imageName, forKey: .binFile)
        try container.encode(imageSize, forKey: .binSize)
        try container.encode(crc32.paddedHex(digits: 8), forKey: .binCRC32)
        try container.encode(crc16.paddedHex(digits: 4), forKey: .binCRC16)
        try container.encode(sha256Hex, forKey: .binSHA256)
        try container.encodeIfPresent(initPacketName, forKey: .datFile)
        try container.encode(initPacketSize, forKey: .datSize)
        try container.encode(softdeviceSize, forKey: .sdSize)
        try container.encode(bootloaderSize, forKey: .blSize)
        switch initPacket {
        case .none: break
        case .secure(let packet): try container.encode(SecureJSON(packet), forKey: .initPacket)
        case .legacy(let packet): try container.encode(LegacyJSON(packet), forKey: .initPacket)
        }
        try container.encode(CheckJSON(imageCheck), forKey: .hashCheck)
        try container.encode(signature.jsonName, forKey: .signature)
        try container.encode(bootValidationSignature.jsonName, forKey: .bootValidationSignature)
    }

    private struct SecureJSON: Encodable {
        let opCode: String?
        let type: String?
        let fwVersion: UInt32?
        let hwVersion: UInt32?
        let sdReq: [String]
        let sdSize: UInt32?
        let blSize: UInt32?
        let appSize: UInt32?
        let hashType: String?
        let hash: String?
        let isDebug: Bool
        let bootValidation: [BootValidationJSON]
        let signatureType: String?
        let signature: String?

        init(_ packet: SecureInitPacket) {
            let command = packet.initCommand
            opCode = packet.opCode?.description
            type = command?.firmwareType?.description
            fwVersion = command?.firmwareVersion
            hwVersion = command?.hardwareVersion
            sdReq = command?.softdeviceRequirements.map { "0x" + String($0, radix: 16, uppercase: true) } ?? []
            sdSize = command?.softdeviceSize
            blSize = command?.bootloaderSize
            appSize = command?.applicationSize
            hashType = command?.hash?.type.description
            hash = command?.hash?.bytes.hexString
            isDebug = command?.isDebug ?? false
            bootValidation = command?.bootValidations.map { BootValidationJSON(type: $0.type.description, bytes: $0.bytes.hexString) } ?? []
            signatureType = packet.signature?.type.description
            signature = packet.signature?.bytes.hexString
        }

        enum CodingKeys: String, CodingKey {
            case opCode = "op_code", type, fwVersion = "fw_version", hwVersion = "hw_version", sdReq = "sd_req"
            case sdSize = "sd_size", blSize = "bl_size", appSize = "app_size", hashType = "hash_type", hash
            case isDebug = "is_debug", bootValidation = "boot_validation", signatureType = "signature_type", signature
        }
    }

    private struct BootValidationJSON: Encodable {
        let type: String
        let bytes: String
    }

    private struct LegacyJSON: Encodable {
        let deviceType: UInt16?
        let deviceRevision: UInt16?
        let applicationVersion: UInt32?
        let softdeviceRequirements: [UInt16]?
        let extensionID: UInt32?
        let firmwareCRC16: UInt16?
        let firmwareLength: UInt32?
        let firmwareHash: String?
        let signature: String?

        init(_ packet: LegacyInitPacket) {
            deviceType = packet.header?.deviceType
            deviceRevision = packet.header?.deviceRevision
            applicationVersion = packet.header?.applicationVersion
            softdeviceRequirements = packet.header?.softdeviceRequirements
            extensionID = packet.extensionID
            switch packet.integrity {
            case .crc16(let crc):
                (firmwareCRC16, firmwareLength, firmwareHash, signature) = (crc, nil, nil, nil)
            case .sha256(let length, let hash):
                (firmwareCRC16, firmwareLength, firmwareHash, signature) = (nil, length, hash.hexString, nil)
            case .signedSHA256(let length, let hash, let bytes):
                (firmwareCRC16, firmwareLength, firmwareHash, signature) = (nil, length, hash.hexString, bytes.hexString)
            }
        }

        enum CodingKeys: String, CodingKey {
            case deviceType = "device_type", deviceRevision = "device_revision", applicationVersion = "application_version"
            case softdeviceRequirements = "softdevice_req", extensionID = "ext_packet_id", firmwareCRC16 = "firmware_crc16"
            case firmwareLength = "firmware_length", firmwareHash = "firmware_hash", signature = "init_packet_ecds"
        }
    }

    private struct CheckJSON: Encodable {
        let result: String
        let digest: String?
        let byteOrder: String?
        let reason: String?

        init(_ check: ImageCheck) {
            func parts(_ digest: ImageDigest) -> (String, String?) {
                switch digest {
                case .sha256(let order): ("sha256", order.rawValue)
                case .crc32: ("crc32", nil)
                case .crc16: ("crc16", nil)
                }
            }
            switch check {
            case .matches(let digest):
                result = "match"
                (self.digest, byteOrder) = parts(digest)
                reason = nil
            case .mismatch(let digest):
                result = "mismatch"
                (self.digest, byteOrder) = parts(digest)
                reason = nil
            case .notChecked(let why):
                (result, digest, byteOrder, reason) = ("not_checked", nil, nil, why)
            }
        }

        enum CodingKeys: String, CodingKey {
            case result, digest, byteOrder = "byte_order", reason
        }
    }
}

extension FixedWidthInteger {
    /// Lowercase hex of the value, zero-padded to `digits`.
    fileprivate func paddedHex(digits: Int) -> String {
        let text = String(self, radix: 16)
        return String(repeating: "0", count: Swift.max(0, digits - text.count)) + text
    }
}
