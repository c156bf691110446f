import DFUCrypto

/// Builds the ``PartReport`` of one image and its init packet, throwing on structural faults.
///
/// Structural: an empty or misaligned image, SoftDevice/bootloader sizes that do not add up, a
/// missing or undecodable init packet, an init packet for another kind of part or other sizes.
/// Digest and signature results are only recorded.
struct PartInspector {
    let kind: PartKind
    let image: [UInt8]
    let imageName: String
    /// Nil or empty: no init packet.
    let initPacket: [UInt8]?
    let initPacketName: String?
    let format: PackageFormat
    let dfuVersion: Double?
    /// Sizes of a combined SoftDevice+bootloader image, from the manifest or the caller.
    let softdeviceSize: UInt32?
    let bootloaderSize: UInt32?
    let key: ECDSAP256.PublicKey?

    func report() throws(PackageError) -> PartReport {
        guard !image.isEmpty else { throw .emptyImage(name: imageName) }
        guard image.count % 4 == 0 else { throw .misalignedImage(name: imageName, size: image.count) }
        let datName = initPacketName ?? imageName
        let initBytes = initPacket ?? []
        let digest = SHA256.digest(image)

        var contents = InitPacketContents.none
        var imageCheck = ImageCheck.notChecked(reason: "no init packet")
        var signature = SignatureStatus.unsigned
        var bootValidationSignature = SignatureStatus.unsigned
        var command: SecureInitPacket.InitCommand? = nil

        switch format {
        case .secure:
            guard !initBytes.isEmpty else { throw .missingInitPacket(imageName: imageName) }
            let packet: SecureInitPacket
            do {
                packet = try SecureInitPacket(bytes: initBytes)
            } catch {
                throw .malformedInitPacket(name: datName, defect: error)
            }
            // An absent op_code reads as RESET (proto2's first enum value), which bootloaders refuse.
            guard packet.opCode == .`init`, let initCommand = packet.initCommand else {
                throw .notAnInitCommand(name: datName)
            }
            contents = .secure(packet)
            command = initCommand
            imageCheck = check(initCommand.hash, digest: digest)
            signature = check(packet.signature, over: packet.initCommandBytes)
        case .legacy:
            if !initBytes.isEmpty {
                let packet: LegacyInitPacket
                do {
                    packet = try LegacyInitPacket(bytes: initBytes, dfuVersion: dfuVersion)
                } catch {
                    throw .malformedInitPacket(name: datName, defect: error)
                }
                contents = .legacy(packet)
                (imageCheck, signature) = try check(packet, bytes: initBytes, digest: digest, datName: datName)
            }
        }

        let sizes = try systemSizes(fallback: (command?.softdeviceSize, command?.bootloaderSize))
        let part = FirmwarePart(
            kind: kind, image: image, initPacket: initBytes,
            softdeviceSize: sizes.softdevice, bootloaderSize: sizes.bootloader,
            imageName: imageName, initPacketName: initBytes.isEmpty ? nil : initPacketName)
        if let command {
            try checkAgreement(command, with: part, datName: datName)
            bootValidationSignature = checkBootValidations(command.bootValidations, softdeviceSize: sizes.softdevice)
        }
        return PartReport(
            part: part, sha256: digest,
            initPacket: contents, imageCheck: imageCheck, signature: signature,
            bootValidationSignature: bootValidationSignature)
    }

    /// The SoftDevice and bootloader sizes inside the image, checked against its size.
    ///
    /// For a combined image the caller's (manifest's) sizes come first, then the init packet's.
    private func systemSizes(
        fallback: (softdevice: UInt32?, bootloader: UInt32?)
    ) throws(PackageError) -> (softdevice: UInt32, bootloader: UInt32) {
        let size = UInt32(clamping: image.count)
        switch kind {
        case .application: return (0, 0)
        case .softdevice: return (size, 0)
        case .bootloader: return (0, size)
        case .softdeviceBootloader:
            guard let sd = softdeviceSize ?? fallback.softdevice, let bl = bootloaderSize ?? fallback.bootloader else {
                throw .missingSystemSizes(name: imageName)
            }
            guard sd > 0, bl > 0, UInt64(sd) + UInt64(bl) == UInt64(image.count) else {
                throw .systemSizesMismatch(name: imageName, softdeviceSize: sd, bootloaderSize: bl, imageSize: image.count)
            }
            return (sd, bl)
        }
    }

    /// A Secure init command must be for this kind of part and state its sizes (absent = 0).
    private func checkAgreement(
        _ command: SecureInitPacket.InitCommand, with part: FirmwarePart, datName: String
    ) throws(PackageError) {
        // proto2 default of `type` is APPLICATION; nrfutil's `--external-app` puts an
        // EXTERNAL_APPLICATION init packet in the application part.
        let type = command.firmwareType ?? .application
        let fits = type == SecureInitPacket.FirmwareType(kind) || (kind == .application && type == .externalApplication)
        guard fits else {
            throw .wrongFirmwareType(name: datName, part: kind, found: command.firmwareType)
        }
        let fields: [(String, UInt32?, UInt32)] = [
            ("app_size", command.applicationSize, part.applicationSize),
            ("sd_size", command.softdeviceSize, part.softdeviceSize),
            ("bl_size", command.bootloaderSize, part.bootloaderSize),
        ]
        for (field, value, expected) in fields where (value ?? 0) != expected {
            throw .sizeFieldMismatch(name: datName, field: field, value: value ?? 0, expected: expected, imageName: imageName)
        }
    }

    /// A Secure `Hash` against the image: SHA-256 in either byte order, or CRC-32.
    private func check(_ hash: SecureInitPacket.Hash?, digest: [UInt8]) -> ImageCheck {
        guard let hash else { return .notChecked(reason: "the init packet has no hash") }
        switch hash.type {
        case .sha256:
            return Self.compare(sha256: hash.bytes, with: digest)
        case .crc:
            var stored = ByteReader(hash.bytes)
            let crc = stored.readInteger(as: UInt32.self)
            return crc == CRC32.checksum(image) && stored.readableBytes == 0 ? .matches(.crc32) : .mismatch(.crc32)
        default:
            return .notChecked(reason: "hash type \(hash.type) is not supported")
        }
    }

    /// A Secure signature over the serialized `InitCommand`, when a key is given.
    private func check(_ signature: SecureInitPacket.Signature?, over message: [UInt8]) -> SignatureStatus {
        guard let signature else { return .unsigned }
        guard signature.type == .ecdsaP256SHA256 else {
            return .unverifiable(reason: "signature type \(signature.type) is not supported")
        }
        guard let key else { return .notChecked }
        return ECDSAP256.verify(signature: signature.bigEndianRS, of: message, with: key) ? .valid : .invalid
    }

    /// The ECDSA signatures of `boot_validation` entries, over the image as nrfutil signs it: the
    /// whole image, except for a SoftDevice+bootloader image where it signs the SoftDevice alone.
    private func checkBootValidations(
        _ validations: [SecureInitPacket.BootValidation], softdeviceSize: UInt32
    ) -> SignatureStatus {
        let signatures = validations.filter { $0.type == .ecdsaP256SHA256 }
        guard !signatures.isEmpty else { return .unsigned }
        guard let key else { return .notChecked }
        let signed = kind == .softdeviceBootloader ? Array(image.prefix(Int(softdeviceSize))) : image
        for validation in signatures {
            let rs = SecureInitPacket.Signature(type: .ecdsaP256SHA256, bytes: validation.bytes).bigEndianRS
            if !ECDSAP256.verify(signature: rs, of: signed, with: key) { return .invalid }
        }
        return .valid
    }

    /// Legacy: the CRC-16, or the stated length and SHA-256, against the image; and a DFU 0.8
    /// signature, which nrfutil 0.5.x makes over every byte before it, stored r‖s big-endian.
    private func check(
        _ packet: LegacyInitPacket, bytes: [UInt8], digest: [UInt8], datName: String
    ) throws(PackageError) -> (ImageCheck, SignatureStatus) {
        switch packet.integrity {
        case .crc16(let crc):
            return (crc == CRC16.checksum(image) ? .matches(.crc16) : .mismatch(.crc16), .unsigned)
        case .sha256(let length, let hash), .signedSHA256(let length, let hash, _):
            guard UInt64(length) == UInt64(image.count) else {
                throw .sizeFieldMismatch(
                    name: datName, field: "firmware length", value: length, expected: UInt32(clamping: image.count),
                    imageName: imageName)
            }
            let imageCheck = Self.compare(sha256: hash, with: digest)
            guard case .signedSHA256(_, _, let signature) = packet.integrity else { return (imageCheck, .unsigned) }
            guard let key else { return (imageCheck, .notChecked) }
            let valid = ECDSAP256.verify(signature: signature, of: Array(bytes.dropLast(signature.count)), with: key)
            return (imageCheck, valid ? .valid : .invalid)
        }
    }

    /// A stored SHA-256 against the image's digest, in nrfutil's reversed order or plain order.
    private static func compare(sha256 stored: [UInt8], with digest: [UInt8]) -> ImageCheck {
        if stored == Array(digest.reversed()) { return .matches(.sha256(.littleEndian)) }
        if stored == digest { return .matches(.sha256(.bigEndian)) }
        return .mismatch(.sha256(.littleEndian))
    }
}
