import DFUCore
import DFUCrypto
import Testing
import DFUFormats

@Suite struct DFUPackageTests {
    @Test func secureApplicationPackageIsReadAndChecked() throws {
        let image = TestPackages.image(64)
        let report = try DFUPackage.inspect(entries: TestPackages.secureApplication(image: image))
        #expect(report.format == .secure)
        let part = try #require(report.parts.first)
        #expect(report.parts.count == 1)
        #expect(part.kind == .application)
        #expect(part.imageName == "app.bin")
        #expect(part.initPacketName == "app.dat")
        #expect(part.imageSize == 64)
        #expect(part.crc32 == CRC32.checksum(image))
        #expect(part.crc16 == CRC16.checksum(image))
        #expect(part.sha256 == SHA256.digest(image))
        #expect(part.imageCheck == .matches(.sha256(.littleEndian)))
        #expect(part.signature == .unsigned)
        let package = try report.checkedPackage()
        #expect(package.parts.map(\.image) == [image])
        #expect(try DFUPackage(entries: TestPackages.secureApplication(image: image)) == package)
    }

    @Test func systemPartComesFirstWithItsSizes() throws {
        let package = try DFUPackage(entries: TestPackages.secureSystemAndApplication())
        #expect(package.parts.map(\.kind) == [.softdeviceBootloader, .application])
        #expect(package.parts[0].softdeviceSize == 64)
        #expect(package.parts[0].bootloaderSize == 32)
        #expect(package.parts[1].applicationSize == 32)
    }

    @Test func legacyPackageIsReadAndChecked() throws {
        let report = try DFUPackage.inspect(entries: TestPackages.legacyApplication())
        #expect(report.format == .legacy)
        #expect(report.dfuVersion == 0.5)
        #expect(report.parts.first?.imageCheck == .matches(.crc16))
        _ = try report.checkedPackage()
    }

    @Test func legacyPartWithoutInitPacketIsAccepted() throws {
        var entries = TestPackages.legacyApplication()
        entries["manifest.json"] = Array(#"{"manifest":{"application":{"bin_file":"app.bin"},"dfu_version":0.5}}"#.utf8)
        let report = try DFUPackage.inspect(entries: entries)
        #expect(report.parts.first?.initPacket == InitPacketContents.none)
        #expect(report.parts.first?.imageCheck == .notChecked(reason: "no init packet"))
        #expect(try report.checkedPackage().parts.first?.initPacket == [])
    }

    @Test func bigEndianHashIsAcceptedAndReported() throws {
        let image = TestPackages.image(64)
        var fields = InitCommandFields.describing(image, as: .application)
        fields.hash = SHA256.digest(image)
        let report = try DFUPackage.inspect(entries: TestPackages.secureApplication(image: image, fields: fields))
        #expect(report.parts.first?.imageCheck == .matches(.sha256(.bigEndian)))
        _ = try report.checkedPackage()
    }

    @Test func secureHashMismatchIsReportedThenRefused() throws {
        var fields = InitCommandFields.describing(TestPackages.image(64), as: .application)
        fields.hash = [UInt8](repeating: 0, count: 32)
        let report = try DFUPackage.inspect(entries: TestPackages.secureApplication(fields: fields))
        #expect(report.parts.first?.imageCheck == .mismatch(.sha256(.littleEndian)))
        #expect(throws: PackageError.hashMismatch(name: "app.dat", imageName: "app.bin")) { try report.checkedPackage() }
        #expect(PackageError.hashMismatch(name: "app.dat", imageName: "app.bin").description == "app.dat: init packet hash does not match app.bin")
    }

    @Test func legacyCRCMismatchIsReportedThenRefused() throws {
        let report = try DFUPackage.inspect(entries: TestPackages.legacyApplication(crc: 0x1234))
        #expect(report.parts.first?.imageCheck == .mismatch(.crc16))
        #expect(throws: PackageError.hashMismatch(name: "app.dat", imageName: "app.bin")) { try report.checkedPackage() }
    }

    @Test func secureInitPacketWithoutHashCannotBeSent() throws {
        var fields = InitCommandFields.describing(TestPackages.image(64), as: .application)
        fields.hash = nil
        let report = try DFUPackage.inspect(entries: TestPackages.secureApplication(fields: fields))
        #expect(report.parts.first?.imageCheck == .notChecked(reason: "the init packet has no hash"))
        #expect(throws: PackageError.hashNotCheckable(name: "app.dat", reason: "the init packet has no hash")) {
            try report.checkedPackage()
        }
    }

    struct BadPackage: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let entries: [String: [UInt8]]
        let error: PackageError
        let message: String
    }

    static func manifest(_ json: String) -> [String: [UInt8]] {
        var entries = TestPackages.secureApplication()
        entries["manifest.json"] = Array(json.utf8)
        return entries
    }

    static func with(_ fields: (inout InitCommandFields) -> Void) -> [String: [UInt8]] {
        var initFields = InitCommandFields.describing(TestPackages.image(64), as: .application)
        fields(&initFields)
        return TestPackages.secureApplication(fields: initFields)
    }

    static let badPackages: [BadPackage] = {
        var noManifest = TestPackages.secureApplication()
        noManifest["manifest.json"] = nil
        var noBin = TestPackages.secureApplication()
        noBin["app.bin"] = nil
        var noDat = TestPackages.secureApplication()
        noDat["app.dat"] = nil
        var truncatedDat = TestPackages.secureApplication()
        truncatedDat["app.dat"] = truncatedDat["app.dat"].map { Array($0.dropLast(3)) }
        var hashCutShort = TestPackages.secureApplication()
        // Packet.command { op_code INIT, init { fw_version 1, hash (8) claiming 40 bytes with 2 present } }
        hashCutShort["app.dat"] = Proto.bytes(1, Proto.uint(1, 1) + Proto.bytes(2, [0x08, 0x01, 0x42, 0x28, 0x08, 0x03]))
        var empty = TestPackages.secureApplication()
        empty["app.bin"] = []
        var misaligned = TestPackages.secureApplication(image: TestPackages.image(63))
        misaligned["app.dat"] = InitCommandFields.describing(TestPackages.image(63), as: .application).unsignedPacket()
        var badSizes = TestPackages.secureSystemAndApplication()
        badSizes["manifest.json"] = Array(
            #"{"manifest":{"softdevice_bootloader":{"bin_file":"sd_bl.bin","dat_file":"sd_bl.dat","info_read_only_metadata":{"sd_size":64,"bl_size":64}}}}"#
                .utf8)
        var noSizes = TestPackages.secureSystemAndApplication()
        noSizes["manifest.json"] = Array(#"{"manifest":{"softdevice_bootloader":{"bin_file":"sd_bl.bin","dat_file":"sd_bl.dat"}}}"#.utf8)
        noSizes["sd_bl.dat"] = InitCommandFields(type: 3, sdSize: nil, blSize: nil, hash: [0]).unsignedPacket()
        var noOpCode = TestPackages.secureApplication()
        // Packet.command { init { … } } without op_code
        noOpCode["app.dat"] = Proto.bytes(1, Proto.bytes(2, InitCommandFields.describing(TestPackages.image(64), as: .application).encoded()))
        var resetCommand = TestPackages.secureApplication()
        resetCommand["app.dat"] = Proto.bytes(1, Proto.uint(1, 0) + Proto.bytes(3, Proto.uint(1, 10)))  // RESET, timeout 10

        return [
            BadPackage(
                testDescription: "missing manifest.json", entries: noManifest, error: .missingManifest,
                message: "manifest.json: the package has no manifest"),
            BadPackage(
                testDescription: "invalid JSON", entries: manifest("{\"manifest\": {"), error: .invalidManifest(cause: "the file is not valid JSON"),
                message: "manifest.json: the file is not valid JSON"),
            BadPackage(
                testDescription: "no manifest key", entries: manifest("{}"), error: .invalidManifest(cause: "key 'manifest' is missing in the top level"),
                message: "manifest.json: key 'manifest' is missing in the top level"),
            BadPackage(
                testDescription: "entry without bin_file", entries: manifest(#"{"manifest":{"application":{"dat_file":"app.dat"}}}"#),
                error: .invalidManifest(cause: "key 'bin_file' is missing in 'manifest.application'"),
                message: "manifest.json: key 'bin_file' is missing in 'manifest.application'"),
            BadPackage(
                testDescription: "size of the wrong type",
                entries: manifest(#"{"manifest":{"softdevice_bootloader":{"bin_file":"a","dat_file":"b","sd_size":"big"}}}"#),
                error: .invalidManifest(cause: "the value at 'manifest.softdevice_bootloader.sd_size' has the wrong type"),
                message: "manifest.json: the value at 'manifest.softdevice_bootloader.sd_size' has the wrong type"),
            BadPackage(
                testDescription: "unknown part key",
                entries: manifest(#"{"manifest":{"bootloader_application":{"bin_file":"app.bin","dat_file":"app.dat"}}}"#),
                error: .unknownPart(key: "bootloader_application"),
                message:
                    "manifest.json: unknown part 'bootloader_application' (expected application, bootloader, softdevice or softdevice_bootloader)"),
            BadPackage(
                testDescription: "no parts", entries: manifest(#"{"manifest":{}}"#), error: .noParts,
                message: "manifest.json: the manifest names no firmware part"),
            BadPackage(
                testDescription: "two system parts",
                entries: manifest(
                    #"{"manifest":{"softdevice":{"bin_file":"a","dat_file":"b"},"bootloader":{"bin_file":"c","dat_file":"d"}}}"#),
                error: .severalSystemParts([.softdevice, .bootloader]),
                message: "manifest.json: the manifest has several system parts (softdevice, bootloader), but at most one is allowed"),
            BadPackage(
                testDescription: "missing image", entries: noBin, error: .missingEntry(name: "app.bin", part: .application),
                message: "app.bin: named by manifest.json for the application part but missing from the package"),
            BadPackage(
                testDescription: "missing init packet", entries: noDat, error: .missingEntry(name: "app.dat", part: .application),
                message: "app.dat: named by manifest.json for the application part but missing from the package"),
            BadPackage(
                testDescription: "secure part without dat_file",
                entries: manifest(#"{"manifest":{"application":{"bin_file":"app.bin"}}}"#),
                error: .missingInitPacket(imageName: "app.bin"),
                message: "app.bin: a Secure DFU image needs an init packet (.dat), and this one has none"),
            BadPackage(
                testDescription: "empty image", entries: empty, error: .emptyImage(name: "app.bin"), message: "app.bin: the image is empty"),
            BadPackage(
                testDescription: "misaligned image", entries: misaligned, error: .misalignedImage(name: "app.bin", size: 63),
                message: "app.bin: the image size 63 is not a multiple of 4 bytes"),
            BadPackage(
                testDescription: "sd_size + bl_size ≠ image", entries: badSizes,
                error: .systemSizesMismatch(name: "sd_bl.bin", softdeviceSize: 64, bootloaderSize: 64, imageSize: 96),
                message: "sd_bl.bin: sd_size 64 + bl_size 64 must be two non-zero sizes adding up to the image size 96"),
            BadPackage(
                testDescription: "no sizes for SD+BL", entries: noSizes, error: .missingSystemSizes(name: "sd_bl.bin"),
                message: "sd_bl.bin: no sd_size and bl_size are given for this SoftDevice+bootloader image"),
            BadPackage(
                testDescription: "truncated init packet", entries: truncatedDat,
                error: .malformedInitPacket(name: "app.dat", defect: .truncated(field: "field 1 'command'")),
                message: "app.dat: init packet is truncated (ends inside field 1 'command')"),
            BadPackage(
                testDescription: "init packet ending inside the hash", entries: hashCutShort,
                error: .malformedInitPacket(name: "app.dat", defect: .truncated(field: "field 8 'hash'")),
                message: "app.dat: init packet is truncated (ends inside field 8 'hash')"),
            BadPackage(
                testDescription: "reset command", entries: resetCommand, error: .notAnInitCommand(name: "app.dat"),
                message: "app.dat: init packet holds no init command"),
            BadPackage(
                testDescription: "init command without op_code", entries: noOpCode, error: .notAnInitCommand(name: "app.dat"),
                message: "app.dat: init packet holds no init command"),
            BadPackage(
                testDescription: "init packet for a bootloader", entries: with { $0.type = 2 },
                error: .wrongFirmwareType(name: "app.dat", part: .application, found: .bootloader),
                message: "app.dat: init packet type is BOOTLOADER, but the part is application (APPLICATION)"),
            BadPackage(
                testDescription: "app_size differs", entries: with { $0.appSize = 60 },
                error: .sizeFieldMismatch(name: "app.dat", field: "app_size", value: 60, expected: 64, imageName: "app.bin"),
                message: "app.dat: init packet has app_size 60, but app.bin needs 64"),
            BadPackage(
                testDescription: "sd_size set for an application", entries: with { $0.sdSize = 4 },
                error: .sizeFieldMismatch(name: "app.dat", field: "sd_size", value: 4, expected: 0, imageName: "app.bin"),
                message: "app.dat: init packet has sd_size 4, but app.bin needs 0"),
            BadPackage(
                testDescription: "legacy init packet too short",
                entries: { var e = TestPackages.legacyApplication(); e["app.dat"] = [1, 2, 3]; return e }(),
                error: .malformedInitPacket(name: "app.dat", defect: .tooShort(size: 3, needed: 14)),
                message: "app.dat: init packet has 3 bytes, fewer than the 14 its layout needs"),
        ]
    }()

    @Test(arguments: badPackages)
    func badPackagesAreRefusedWithOneSentenceNamingTheFile(_ bad: BadPackage) {
        #expect(throws: bad.error) { _ = try DFUPackage.inspect(entries: bad.entries) }
        #expect(bad.error.description == bad.message)
        #expect(!bad.message.contains("\n"))
    }
}
