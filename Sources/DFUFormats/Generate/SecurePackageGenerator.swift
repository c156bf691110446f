import DFUCrypto

/// Makes a Secure DFU package the way nrfutil 6.1.7 makes it (`nordicsemi/dfu/package.py`,
/// `Package.__init__` and `Package.generate_package`), so that its zip entries are byte-identical
/// to nrfutil's (signatures aside: ECDSA takes a random nonce).
///
/// - Parts: the application (APPLICATION or EXTERNAL_APPLICATION), the bootloader and the
///   SoftDevice; a bootloader together with a SoftDevice becomes one SOFTDEVICE_BOOTLOADER image,
///   `sd_bl.bin` = SoftDevice image ‖ bootloader image, whose `fw_version` is the bootloader's.
/// - Names: a part's image is the file's base name with every `.hex` replaced by `.bin`, its init
///   packet that name with every `.bin` replaced by `.dat` (`normalize_firmware_to_bin`).
/// - `sd_req`: the application's is `--sd-id` when given, else `--sd-req`; the system parts'
///   is `--sd-req` plus the `--sd-id` values it lacks; an empty list becomes [0xFFFE]; each is
///   written in CPython's set order (see ``PythonIntegerSet``).
/// - `hash`: SHA-256 of the image, byte-reversed. `boot_validation`: the application's and the
///   SoftDevice's as asked (default VALIDATE_GENERATED_CRC), the bootloader's always
///   VALIDATE_GENERATED_CRC (a combined image carries the SoftDevice's then the bootloader's);
///   only VALIDATE_ECDSA_P256_SHA256 has bytes, the signature of the image (of the SoftDevice
///   alone for a combined image).
/// - Zip order: nrfutil zips its temporary folder in `os.listdir` order, which depends on the file
///   system (name-hash order on ext4); this writes the order a tmpfs folder lists, newest first:
///   `manifest.json`, then the files in reverse order of creation.
public enum SecurePackageGenerator {
    /// Signs a message with the package key: returns r‖s, 32 bytes big-endian each, nil when it cannot.
    public typealias Signer = ([UInt8]) -> [UInt8]?

    private struct Part {
        let key: String
        let type: SecureInitPacket.FirmwareType
        let binName: String
        let image: [UInt8]
        let firmwareVersion: UInt32
        let requirements: [UInt32]
        let validations: [SecureInitPacket.ValidationType]
        let sizes: (softdevice: UInt32, bootloader: UInt32, application: UInt32)
        /// The image signed for VALIDATE_ECDSA_P256_SHA256.
        let validatedImage: [UInt8]
    }

    /// The package's files in zip order. `signer` signs the init packets (and ECDSA boot validations).
    public static func generate(_ request: SecurePackageRequest, signer: Signer?) throws(PackageGenerationError) -> GeneratedPackage {
        let parts = try plan(request)
        var created: [GeneratedPackage.File] = []
        var manifest: [NrfutilManifestWriter.Part] = []
        if let combined = parts.first(where: { $0.type == .softdeviceBootloader }) {
            created.append(.init(name: combined.binName, bytes: combined.image))
        }
        for part in parts {
            let datName = part.binName.replacingAll(".bin", with: ".dat")
            var validations: [SecureInitPacket.BootValidation] = []
            for type in part.validations {
                guard type == .ecdsaP256SHA256 else {
                    validations.append(.init(type: type, bytes: []))
                    continue
                }
                guard let signer else { throw .usage("VALIDATE_ECDSA_P256_SHA256 boot validation needs --key-file") }
                validations.append(.init(type: type, bytes: littleEndianHalves(try sign(part.validatedImage, with: signer))))
            }
            let command = SecureInitPacket.InitCommand(
                firmwareVersion: part.firmwareVersion, hardwareVersion: request.hardwareVersion,
                softdeviceRequirements: part.requirements, firmwareType: part.type,
                softdeviceSize: part.sizes.softdevice, bootloaderSize: part.sizes.bootloader,
                applicationSize: part.sizes.application,
                hash: .init(type: .sha256, bytes: SHA256.digest(part.image).reversed()),
                isDebug: request.isDebug, bootValidations: validations)
            let commandBytes = SecureInitPacketEncoder.initCommandBytes(command)
            var signature: SecureInitPacket.Signature? = nil
            if let signer {
                signature = .init(type: .ecdsaP256SHA256, bytes: littleEndianHalves(try sign(commandBytes, with: signer)))
            }
            if part.type != .softdeviceBootloader {
                created.append(.init(name: part.binName, bytes: part.image))
            }
            created.append(.init(name: datName, bytes: SecureInitPacketEncoder.packet(initCommand: commandBytes, signature: signature)))
            manifest.append(.init(
                key: part.key, binFile: part.binName, datFile: datName,
                sizes: part.type == .softdeviceBootloader ? (Int(part.sizes.softdevice), Int(part.sizes.bootloader)) : nil))
        }
        created.append(.init(name: "manifest.json", bytes: Array(NrfutilManifestWriter.json(manifest).utf8)))
        return GeneratedPackage(files: created.reversed())
    }

    /// The parts in nrfutil's processing order (application, bootloader, SoftDevice; or
    /// application, SoftDevice+bootloader), with names checked and images flattened.
    private static func plan(_ request: SecurePackageRequest) throws(PackageGenerationError) -> [Part] {
        let systemRequirements = mergedRequirements(request.softdeviceRequirements, request.softdeviceIDs)
        let applicationRequirements = setOrder(request.softdeviceIDs ?? request.softdeviceRequirements)
        var names = PackageMemberNames()
        func name(of firmware: SecurePackageRequest.Firmware) throws(PackageGenerationError) -> String {
            try names.binName(of: firmware)
        }
        var parts: [Part] = []
        let combined = request.softdevice != nil && request.bootloader != nil
        if combined, let softdevice = request.softdevice, let bootloader = request.bootloader {
            names.reserve("sd_bl.bin", for: "the SoftDevice+bootloader image")
            _ = try name(of: softdevice)
            let sdImage = try NordicImageFlattener.image(name: softdevice.path, bytes: softdevice.bytes)
            let blImage = try NordicImageFlattener.image(name: bootloader.path, bytes: bootloader.bytes)
            let sdBL = Part(
                key: "softdevice_bootloader", type: .softdeviceBootloader, binName: "sd_bl.bin", image: sdImage + blImage,
                firmwareVersion: request.bootloaderVersion, requirements: systemRequirements,
                validations: [request.softdeviceBootValidation, .generatedCRC],
                sizes: (UInt32(sdImage.count), UInt32(blImage.count), 0), validatedImage: sdImage)
            if let application = request.application {
                parts.append(try applicationPart(request, application, name: name(of: application), requirements: applicationRequirements))
            }
            return parts + [sdBL]
        }
        if let application = request.application {
            parts.append(try applicationPart(request, application, name: name(of: application), requirements: applicationRequirements))
        }
        if let bootloader = request.bootloader {
            let binName = try name(of: bootloader)
            let image = try NordicImageFlattener.image(name: bootloader.path, bytes: bootloader.bytes)
            parts.append(Part(
                key: "bootloader", type: .bootloader, binName: binName, image: image,
                firmwareVersion: request.bootloaderVersion, requirements: systemRequirements, validations: [.generatedCRC],
                sizes: (0, UInt32(image.count), 0), validatedImage: image))
        }
        if let softdevice = request.softdevice {
            let binName = try name(of: softdevice)
            let image = try NordicImageFlattener.image(name: softdevice.path, bytes: softdevice.bytes)
            parts.append(Part(
                key: "softdevice", type: .softdevice, binName: binName, image: image,
                firmwareVersion: 0xFFFF_FFFF, requirements: systemRequirements, validations: [request.softdeviceBootValidation],
                sizes: (UInt32(image.count), 0, 0), validatedImage: image))
        }
        return parts
    }

    private static func applicationPart(
        _ request: SecurePackageRequest, _ application: SecurePackageRequest.Firmware, name: String, requirements: [UInt32]
    ) throws(PackageGenerationError) -> Part {
        let image = try NordicImageFlattener.image(name: application.path, bytes: application.bytes)
        return Part(
            key: "application", type: request.isExternalApplication ? .externalApplication : .application,
            binName: name, image: image, firmwareVersion: request.applicationVersion, requirements: requirements,
            validations: [request.applicationBootValidation], sizes: (0, 0, UInt32(image.count)), validatedImage: image)
    }

    /// `--sd-req` plus the `--sd-id` values it lacks, in the order nrfutil appends them
    /// (`sd_req_list += set(sd_id_list) - set(sd_req_list)`), then in set order.
    private static func mergedRequirements(_ requirements: [UInt32], _ ids: [UInt32]?) -> [UInt32] {
        guard let ids else { return setOrder(requirements) }
        let added = PythonIntegerSet(ids.map(UInt64.init)).subtracting(PythonIntegerSet(requirements.map(UInt64.init)))
        return setOrder(requirements + added.elements.map { UInt32($0) })
    }

    /// `list(set(values))`, with an empty list replaced by [0xFFFE] first (`InitPacketPB.__init__`).
    private static func setOrder(_ values: [UInt32]) -> [UInt32] {
        let list = values.isEmpty ? [0xFFFE] : values
        return PythonIntegerSet(list.map(UInt64.init)).elements.map { UInt32($0) }
    }

    private static func sign(_ message: [UInt8], with signer: Signer) throws(PackageGenerationError) -> [UInt8] {
        guard let signature = signer(message), signature.count == 64 else {
            throw .data(name: "--key-file", "libcrypto could not sign with the key")
        }
        return signature
    }

    /// r‖s big-endian to nrfutil's storage order: each 32-byte half reversed (`Signing.sign`).
    private static func littleEndianHalves(_ rs: [UInt8]) -> [UInt8] {
        guard rs.count == 64 else { return rs }
        return Array(rs[0..<32].reversed()) + Array(rs[32..<64].reversed())
    }
}

extension String {
    /// Python's `str.replace(old, new)`: every non-overlapping occurrence, left to right.
    func replacingAll(_ old: String, with new: String) -> String { replacing(old, with: new) }
}
