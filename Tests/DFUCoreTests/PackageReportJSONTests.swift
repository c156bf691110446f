import DFUCore
import DFUCrypto
import Foundation
import Testing
import DFUFormats

@Suite struct PackageReportJSONTests {
    static func json(_ report: PackageReport) throws -> [String: Any] {
        let data = try JSONEncoder().encode(report)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func secureReportUsesTheSamplesFieldNames() throws {
        let image = TestPackages.image(64)
        let object = try Self.json(DFUPackage.inspect(entries: TestPackages.secureApplication(image: image)))
        #expect(object["format"] as? String == "secure")
        #expect(object["dfu_version"] == nil)
        let part = try #require((object["parts"] as? [[String: Any]])?.first)
        #expect(part["type"] as? String == "application")
        #expect(part["bin_file"] as? String == "app.bin")
        #expect(part["bin_size"] as? Int == 64)
        #expect(part["bin_crc32"] as? String == String(format: "%08x", CRC32.checksum(image)))
        #expect(part["bin_crc16_ccitt"] as? String == String(format: "%04x", CRC16.checksum(image)))
        #expect(part["bin_sha256"] as? String == SHA256.digest(image).hexString)
        #expect(part["dat_file"] as? String == "app.dat")
        #expect(part["signature"] as? String == "unsigned")
        let check = try #require(part["hash_check"] as? [String: Any])
        #expect(check["result"] as? String == "match")
        #expect(check["digest"] as? String == "sha256")
        #expect(check["byte_order"] as? String == "little-endian")
        let initPacket = try #require(part["init"] as? [String: Any])
        #expect(initPacket["type"] as? String == "APPLICATION")
        #expect(initPacket["op_code"] as? String == "INIT")
        #expect(initPacket["sd_req"] as? [Int] == [0x100])
        #expect(initPacket["hash_ok"] as? Bool == true)
        #expect(initPacket["signature_type"] is NSNull, "unsigned: signature_type is null")
        #expect(initPacket["signature_ok"] is NSNull, "no key: signature_ok is null")
        #expect(initPacket["app_size"] as? Int == 64)
        #expect(initPacket["hash"] as? String == Array(SHA256.digest(image).reversed()).hexString)
    }

    @Test func legacyReportCarriesTheExtendedHeader() throws {
        let object = try Self.json(DFUPackage.inspect(entries: TestPackages.legacyApplication()))
        #expect(object["format"] as? String == "legacy")
        #expect(object["dfu_version"] as? Double == 0.5)
        let part = try #require((object["parts"] as? [[String: Any]])?.first)
        let initPacket = try #require(part["init"] as? [String: Any])
        #expect(initPacket["device_type"] as? Int == 0xFFFF)
        #expect(initPacket["hw_version"] as? Int == 0xFFFF)
        #expect(initPacket["sd_req"] as? [Int] == [0xFFFE])
        #expect(initPacket["type"] as? String == "APPLICATION")
        #expect(initPacket["hash_type"] as? String == "CRC16")
        #expect(initPacket["hash_ok"] as? Bool == true)
        #expect(initPacket["signature_ok"] is NSNull)
        #expect(initPacket["softdevice_req"] as? [Int] == [0xFFFE])
        #expect(initPacket["firmware_crc16"] as? Int == Int(CRC16.checksum(TestPackages.image(64))))
        #expect((part["hash_check"] as? [String: Any])?["digest"] as? String == "crc16")
    }
}
