import DFUCore
import Foundation
import Testing
import ZipArchive
import DFUFormats

/// Reads every package listed in `shared/nordic-samples/samples.json` (decoded independently with
/// nrfutil's own protobuf classes) and compares what ``DFUPackage/inspect(entries:key:)`` finds.
@Suite(.enabled(if: SharedData.hasNordicSamples, "needs ../shared/nordic-samples"))
struct NordicSamplesTests {
    struct Sample: Decodable, CustomTestStringConvertible, Sendable {
        let file: String
        let format: String
        let parts: [Part]
        var testDescription: String { file }
    }

    struct Part: Decodable, Sendable {
        let type: String
        let bin_file: String
        let bin_size: Int
        let bin_crc32: String
        let bin_crc16_ccitt: String
        let bin_sha256: String
        let dat_file: String
        let dat_size: Int
        let checks: [String: Bool]
        let initPacket: Init

        enum CodingKeys: String, CodingKey {
            case type, bin_file, bin_size, bin_crc32, bin_crc16_ccitt, bin_sha256, dat_file, dat_size, checks
            case initPacket = "init"
            case manifest_info_read_only_metadata, manifest_sd_size, manifest_bl_size
        }
        let manifest_info_read_only_metadata: Sizes?
        let manifest_sd_size: UInt32?
        let manifest_bl_size: UInt32?
    }

    struct Sizes: Decodable, Sendable {
        let sd_size: UInt32
        let bl_size: UInt32
    }

    struct Init: Decodable, Sendable {
        // Secure
        let op_code: String?
        let fw_version: UInt32?
        let hw_version: UInt32?
        let sd_req: [String]?
        let type: String?
        let sd_size: UInt32?
        let bl_size: UInt32?
        let app_size: UInt32?
        let hash_type: String?
        let hash_le: String?
        let is_debug: Bool?
        let signature_type: String?
        let signature_le: String?
        let boot_validation: [String]?
        // Legacy
        let raw_hex: String?
        let firmware_crc16: UInt16?
        let device_type: UInt16?
        let device_revision: UInt16?
        let application_version: UInt32?
        let softdevice_req: [UInt16]?
    }

    static let samples: [Sample] = {
        guard SharedData.hasNordicSamples,
            let data = try? Data(contentsOf: SharedData.nordicSamples.appendingPathComponent("samples.json"))
        else { return [] }
        return (try? JSONDecoder().decode([Sample].self, from: data)) ?? []
    }()

    @Test func samplesJSONListsEveryPackage() {
        #expect(Self.samples.count == 102)
    }

    @Test(arguments: samples)
    func inspectionMatchesIndependentDecoding(_ sample: Sample) throws {
        let zipBytes = try SharedData.sample(sample.file)
        let report = try DFUPackage.inspect(entries: ZipArchive.readAll(bytes: zipBytes))
        #expect(report.format.rawValue == sample.format)
        try #require(report.parts.count == sample.parts.count)
        for (found, expected) in zip(report.parts, sample.parts) {
            #expect(found.kind.rawValue == expected.type)
            #expect(found.imageName == expected.bin_file)
            #expect(found.imageSize == expected.bin_size)
            #expect(Self.hex32(found.crc32) == expected.bin_crc32)
            #expect(Self.hex16(found.crc16) == expected.bin_crc16_ccitt)
            #expect(found.sha256Hex == expected.bin_sha256)
            #expect(found.initPacketName == expected.dat_file)
            #expect(found.initPacketSize == expected.dat_size)
            try checkSizes(found, expected)
            switch found.initPacket {
            case .secure(let packet): try checkSecure(packet, found, expected)
            case .legacy(let packet): try checkLegacy(packet, found, expected)
            case .none: Issue.record("\(expected.dat_file) was not decoded")
            }
        }
        // Every sample's images match their init packets; no key, so signatures are not checked.
        _ = try report.checkedPackage()
    }

    private func checkSizes(_ found: PartReport, _ expected: Part) throws {
        switch found.kind {
        case .softdeviceBootloader:
            let sd = expected.manifest_info_read_only_metadata?.sd_size ?? expected.manifest_sd_size
            let bl = expected.manifest_info_read_only_metadata?.bl_size ?? expected.manifest_bl_size
            #expect(found.softdeviceSize == sd)
            #expect(found.bootloaderSize == bl)
        case .softdevice:
            #expect(found.softdeviceSize == UInt32(expected.bin_size) && found.bootloaderSize == 0)
        case .bootloader:
            #expect(found.bootloaderSize == UInt32(expected.bin_size) && found.softdeviceSize == 0)
        case .application:
            #expect(found.softdeviceSize == 0 && found.bootloaderSize == 0)
        }
    }

    private func checkSecure(_ packet: SecureInitPacket, _ found: PartReport, _ expected: Part) throws {
        let command = try #require(packet.initCommand)
        let want = expected.initPacket
        #expect(packet.opCode?.description == want.op_code)
        #expect(command.firmwareVersion == want.fw_version)
        #expect(command.hardwareVersion == want.hw_version)
        #expect(command.softdeviceRequirements.map { "0x" + String($0, radix: 16, uppercase: true) } == want.sd_req)
        #expect(command.firmwareType?.description == want.type)
        #expect((command.softdeviceSize ?? 0) == want.sd_size)
        #expect((command.bootloaderSize ?? 0) == want.bl_size)
        #expect((command.applicationSize ?? 0) == want.app_size)
        #expect(command.hash?.type.description == want.hash_type)
        #expect(command.hash?.bytes.hexString == want.hash_le)
        #expect(command.isDebug == want.is_debug)
        #expect(command.bootValidations.map(\.type.description) == want.boot_validation)
        #expect(packet.signature?.type.description == want.signature_type)
        #expect(packet.signature?.bytes.hexString == want.signature_le)
        #expect(found.signature == .notChecked)
        if expected.checks["sha256_le_matches_bin"] == true {
            #expect(found.imageCheck == .matches(.sha256(.littleEndian)))
        } else {
            // The one 2016 package that stores its SHA-256 in plain order.
            #expect(found.imageCheck == .matches(.sha256(.bigEndian)))
        }
    }

    private func checkLegacy(_ packet: LegacyInitPacket, _ found: PartReport, _ expected: Part) throws {
        let want = expected.initPacket
        #expect(found.part.initPacket.hexString == want.raw_hex)
        #expect(packet.integrity == .crc16(try #require(want.firmware_crc16)))
        #expect(packet.header?.deviceType == want.device_type)
        #expect(packet.header?.deviceRevision == want.device_revision)
        #expect(packet.header?.applicationVersion == want.application_version)
        #expect(packet.header?.softdeviceRequirements == want.softdevice_req)
        #expect(expected.checks["crc16_matches_bin"] == true)
        #expect(found.imageCheck == .matches(.crc16))
        #expect(found.signature == .unsigned)
    }

    static func hex32(_ value: UInt32) -> String { String(repeating: "0", count: 8 - String(value, radix: 16).count) + String(value, radix: 16) }
    static func hex16(_ value: UInt16) -> String { String(repeating: "0", count: 4 - String(value, radix: 16).count) + String(value, radix: 16) }
}
