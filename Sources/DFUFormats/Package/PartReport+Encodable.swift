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
        case .secure(let packet):
            try container.encode(SecureJSON(packet, check: imageCheck, signature: signature), forKey: .initPacket)
        case .legacy(let packet):
            try container.encode(
                LegacyJSON(packet, kind: kind, check: imageCheck, signature: signature), forKey: .initPacket)
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
        let sdReq: [UInt32]
        let hashOK: Bool
        let signatureOK: Bool?
        let sdSize: UInt32?
        let blSize: UInt32?
        let appSize: UInt32?
        let hashType: String?
        let hash: String?
        let isDebug: Bool
        let bootValidation: [BootValidationJSON]
        let signatureType: String?
        let signature: String?

        init(_ packet: SecureInitPacket, check: ImageCheck, signature status: SignatureStatus) {
            let command = packet.initCommand
            hashOK = check.isMatch
            signatureOK = status.isVerified
            opCode = packet.opCode?.description
            type = command?.firmwareType?.description
            fwVersion = command?.firmwareVersion
            hwVersion = command?.hardwareVersion
            sdReq = command?.softdeviceRequirements ?? []
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
            case hashOK = "hash_ok", signatureOK = "signature_ok"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(opCode, forKey: .opCode)
            try container.encode(type, forKey: .type)
            try container.encode(fwVersion, forKey: .fwVersion)
            try container.encode(hwVersion, forKey: .hwVersion)
            try container.encode(sdReq, forKey: .sdReq)
            try container.encode(sdSize, forKey: .sdSize)
            try container.encode(blSize, forKey: .blSize)
            try container.encode(appSize, forKey: .appSize)
            try container.encode(hashType, forKey: .hashType)
            try container.encode(hash, forKey: .hash)
            try container.encode(hashOK, forKey: .hashOK)
            try container.encode(isDebug, forKey: .isDebug)
            try container.encode(bootValidation, forKey: .bootValidation)
            try container.encode(signatureType, forKey: .signatureType)
            try container.encode(signature, forKey: .signature)
            try container.encode(signatureOK, forKey: .signatureOK)
        }
    }

    private struct BootValidationJSON: Encodable {
        let type: String
        let bytes: String
    }

    /// The Legacy init packet, with the fields every part shares (`fw_version`, `hw_version`,
    /// `sd_req`, `type`, `hash_type`, `hash_ok`, `signature_type`, `signature_ok`) next to the
    /// Legacy names of nrfutil 0.5.x (`device_type`, `application_version`, …). `fw_version` is the
    /// application version and `hw_version` the device type.
    private struct LegacyJSON: Encodable {
        let packet: LegacyInitPacket
        let kind: PartKind
        let hashOK: Bool
        let signatureOK: Bool?

        init(_ packet: LegacyInitPacket, kind: PartKind, check: ImageCheck, signature: SignatureStatus) {
            self.packet = packet
            self.kind = kind
            hashOK = check.isMatch
            signatureOK = signature.isVerified
        }

        enum CodingKeys: String, CodingKey {
            case fwVersion = "fw_version", hwVersion = "hw_version", sdReq = "sd_req", type, hashType = "hash_type"
            case hashOK = "hash_ok", signatureType = "signature_type", signatureOK = "signature_ok"
            case deviceType = "device_type", deviceRevision = "device_revision", applicationVersion = "application_version"
            case softdeviceRequirements = "softdevice_req", extensionID = "ext_packet_id", firmwareCRC16 = "firmware_crc16"
            case firmwareLength = "firmware_length", firmwareHash = "firmware_hash", signature = "init_packet_ecds"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            let header = packet.header
            try container.encode(header?.applicationVersion, forKey: .fwVersion)
            try container.encode(header?.deviceType, forKey: .hwVersion)
            try container.encode(header?.softdeviceRequirements ?? [], forKey: .sdReq)
            try container.encode(kind.rawValue.uppercased(), forKey: .type)
            try container.encodeIfPresent(header?.deviceType, forKey: .deviceType)
            try container.encodeIfPresent(header?.deviceRevision, forKey: .deviceRevision)
            try container.encodeIfPresent(header?.applicationVersion, forKey: .applicationVersion)
            try container.encodeIfPresent(header?.softdeviceRequirements, forKey: .softdeviceRequirements)
            try container.encodeIfPresent(packet.extensionID, forKey: .extensionID)
            switch packet.integrity {
            case .crc16(let crc):
                try container.encode("CRC16", forKey: .hashType)
                try container.encode(crc, forKey: .firmwareCRC16)
                try container.encodeNil(forKey: .signatureType)
            case .sha256(let length, let hash):
                try container.encode("SHA256", forKey: .hashType)
                try container.encode(length, forKey: .firmwareLength)
                try container.encode(hash.hexString, forKey: .firmwareHash)
                try container.encodeNil(forKey: .signatureType)
            case .signedSHA256(let length, let hash, let signature):
                try container.encode("SHA256", forKey: .hashType)
                try container.encode(length, forKey: .firmwareLength)
                try container.encode(hash.hexString, forKey: .firmwareHash)
                try container.encode(signature.hexString, forKey: .signature)
                try container.encode("ECDSA_P256_SHA256", forKey: .signatureType)
            }
            try container.encode(hashOK, forKey: .hashOK)
            try container.encode(signatureOK, forKey: .signatureOK)
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
