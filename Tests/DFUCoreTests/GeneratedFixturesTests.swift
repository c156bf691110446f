import DFUCore
import DFUCrypto
import Foundation
import Testing
import ZipArchive
import DFUFormats

/// The packages made with nrfutil 6.1.7 / adafruit-nrfutil into `Tests/Fixtures` (see its README),
/// read through ``ZipArchive`` and ``DFUPackage``, compared with their `expected.json`.
@Suite(.enabled(if: SharedData.hasGeneratedFixtures, "needs Tests/Fixtures/packages and bad"))
struct GeneratedFixturesTests {
    static let root = SharedData.generatedFixtures

    static func file(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: root.appendingPathComponent(path)))
    }

    static func key(_ name: String) throws -> ECDSAP256.PublicKey {
        try ECDSAP256.PublicKey(pem: file("keys/\(name)"))
    }

    struct Package: Decodable, CustomTestStringConvertible, Sendable {
        let file: String
        let format: String
        let signed: Bool
        let parts: [NordicSamplesTests.Part]
        var testDescription: String { file }
    }

    struct Bad: Decodable, CustomTestStringConvertible, Sendable {
        let file: String
        let cause: String
        var testDescription: String { file }
    }

    static func load<T: Decodable>(_ path: String, as type: [T].Type) -> [T] {
        guard SharedData.hasGeneratedFixtures, let data = try? Data(contentsOf: root.appendingPathComponent(path)) else { return [] }
        return (try? JSONDecoder().decode(type, from: data)) ?? []
    }

    static let packages = load("packages/expected.json", as: [Package].self)
    static let badFiles = load("bad/expected.json", as: [Bad].self)

    @Test func everyListedFileWasLoaded() {
        #expect(Self.packages.count >= 20)
        #expect(Self.badFiles.count >= 15)
    }

    @Test(arguments: packages)
    func validPackageMatchesItsExpectedFacts(_ package: Package) throws {
        let entries = try ZipArchive.readAll(bytes: Self.file("packages/\(package.file)"))
        let report = try DFUPackage.inspect(entries: entries, key: package.signed ? Self.key("test-public.pem") : nil)
        #expect(report.format.rawValue == package.format)
        try #require(report.parts.count == package.parts.count)
        for (found, expected) in zip(report.parts, package.parts) {
            #expect(found.kind.rawValue == expected.type)
            #expect(found.imageName == expected.bin_file)
            #expect(found.imageSize == expected.bin_size)
            #expect(NordicSamplesTests.hex32(found.crc32) == expected.bin_crc32)
            #expect(NordicSamplesTests.hex16(found.crc16) == expected.bin_crc16_ccitt)
            #expect(found.sha256Hex == expected.bin_sha256)
            #expect(found.initPacketSize == expected.dat_size)
            let want = expected.initPacket
            switch found.initPacket {
            case .secure(let packet):
                let command = try #require(packet.initCommand)
                #expect(command.firmwareType?.description == want.type)
                #expect(command.firmwareVersion == want.fw_version)
                #expect(command.hardwareVersion == want.hw_version)
                #expect(command.softdeviceRequirements.map { "0x" + String($0, radix: 16, uppercase: true) } == want.sd_req)
                #expect((command.applicationSize ?? 0) == want.app_size)
                #expect((command.softdeviceSize ?? 0) == want.sd_size)
                #expect((command.bootloaderSize ?? 0) == want.bl_size)
                #expect(command.hash?.bytes.hexString == want.hash_le)
                #expect(command.isDebug == want.is_debug)
                #expect(command.bootValidations.map(\.type.description) == want.boot_validation)
                #expect(packet.signature?.bytes.hexString == want.signature_le)
                #expect(found.imageCheck == .matches(.sha256(.littleEndian)))
                #expect(found.signature == (package.signed ? .valid : .unsigned))
                let signsImage = want.boot_validation?.contains("VALIDATE_ECDSA_P256_SHA256") == true
                #expect(found.bootValidationSignature == (signsImage ? .valid : .unsigned))
            case .legacy(let packet):
                #expect(found.part.initPacket.hexString == want.raw_hex)
                #expect(packet.header?.softdeviceRequirements == want.softdevice_req)
                #expect(packet.integrity == .crc16(try #require(want.firmware_crc16)))
                #expect(found.imageCheck == .matches(.crc16))
            case .none:
                Issue.record("\(expected.dat_file) was not decoded")
            }
        }
        _ = try report.checkedPackage()
        if package.signed {
            #expect(throws: PackageError.self) {
                _ = try DFUPackage(entries: entries, key: Self.key("other-public.pem"))
            }
        }
    }

    /// Reads a bad file as `dfu` would: zip, then inspection, then the checks, with the test key.
    static func outcome(_ file: String) throws -> any Error {
        do {
            let entries = try ZipArchive.readAll(bytes: Self.file("bad/\(file)"))
            _ = try DFUPackage(entries: entries, key: Self.key("test-public.pem"))
        } catch {
            return error
        }
        throw Accepted()
    }

    /// Thrown when a bad file was accepted.
    struct Accepted: Error {}

    @Test(arguments: badFiles)
    func badFileIsRefusedForItsOwnCause(_ bad: Bad) throws {
        let error = try Self.outcome(bad.file)
        let zip = (error as? ZipError)?.kind
        let package = error as? PackageError
        let matches: Bool =
            switch (bad.cause, zip, package) {
            case ("not_a_zip", .notAZip?, _), ("empty_file", .notAZip?, _), ("truncated_zip", .truncated?, _): true
            case ("declared_size_too_small", .sizeMismatch(_, declared: 4096, actual: 4097)?, _): true
            case ("entry_too_large", .entryTooLarge(_, size: 20_971_520, limit: 16_777_216)?, _): true
            case ("path_traversal", .unsafePath("../evil.bin")?, _), ("absolute_path", .unsafePath("/etc/evil.bin")?, _): true
            case ("no_manifest", _, .missingManifest?): true
            case ("invalid_manifest_json", _, .invalidManifest?): true
            case ("missing_file", _, .missingEntry(name: "app_1024.bin", part: .application)?): true
            case ("two_system_parts", _, .severalSystemParts([.softdevice, .bootloader])?): true
            case ("unknown_part", _, .unknownPart(key: "firmware")?): true
            case ("truncated_init_packet", _, .malformedInitPacket(_, defect: .truncated)?): true
            case ("garbage_init_packet", _, .malformedInitPacket?): true
            case ("hash_mismatch", _, .hashMismatch?), ("legacy_crc_mismatch", _, .hashMismatch?): true
            case ("signature_mismatch", _, .invalidSignature?): true
            default: false
            }
        #expect(matches, "\(bad.file) (\(bad.cause)) was refused with: \(error)")
        #expect(!String(describing: error).contains("\n"))
    }
}
