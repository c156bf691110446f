import DFUCommand
import Foundation
import Testing

/// Raw images, Intel HEX flattening and the wording of bad-input lines.
@Suite struct RawImageInputTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Intel HEX for `bytes` at `address`: an extended linear address record (04), 16-byte data
    /// records (00) and the end-of-file record (01), each with its two's-complement checksum.
    static func intelHex(_ bytes: [UInt8], at address: UInt32) -> String {
        func record(_ type: UInt8, _ offset: UInt16, _ data: [UInt8]) -> String {
            let body = [UInt8(data.count), UInt8(offset >> 8), UInt8(offset & 0xFF), type] + data
            let sum = UInt8(truncatingIfNeeded: 0x100 - Int(body.reduce(0) { ($0 + Int($1)) & 0xFF }))
            return ":" + (body + [sum]).map { String(format: "%02X", $0) }.joined() + "\n"
        }
        var text = record(0x04, 0, [UInt8(address >> 24), UInt8((address >> 16) & 0xFF)])
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(offset + 16, bytes.count)])
            text += record(0x00, UInt16((Int(address & 0xFFFF) + offset) & 0xFFFF), chunk)
            offset += 16
        }
        return text + record(0x01, 0, [])
    }

    @Test func anIntelHexImageIsPaddedToWholeWordsWith0xFFAsNrfutilDoes() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = (0..<4095).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let hex = folder.appendingPathComponent("app_4095_at_0x26000.hex")
        try Self.intelHex(image, at: 0x26000).write(to: hex, atomically: true, encoding: .utf8)
        let padded = folder.appendingPathComponent("app_4096.bin")
        try Data(image + [0xFF]).write(to: padded)
        let fromHex = await RecordedRun.dfu("inspect", hex.path, "--type", "application", "--json")
        #expect(fromHex.code == .success, "\(fromHex.error)")
        let fromBin = await RecordedRun.dfu("inspect", padded.path, "--type", "application", "--json")
        #expect(fromBin.code == .success, "\(fromBin.error)")
        let hexPart = try #require(try Self.parts(fromHex).first), binPart = try #require(try Self.parts(fromBin).first)
        #expect(hexPart["bin_size"] as? Int == 4096, "\(hexPart)")
        #expect(hexPart["bin_crc32"] as? String == binPart["bin_crc32"] as? String)
    }

    static func parts(_ run: RecordedRun) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return try #require(object["parts"] as? [[String: Any]])
    }

    @Test func uploadingARawImageWithoutItsInitPacketIsRefusedBeforeConnecting() async {
        let run = await RecordedRun.dfu("upload", "app.bin", "--type", "application", "-d", "C0:FF:EE:00:00:01")
        #expect(run.code == .usage)
        #expect(run.error.hasPrefix("dfu: a raw image (app.bin) needs its init packet: add --init FILE.dat"), "\(run.error)")
    }

    @Test func inspectNamesARawImageWithoutInitPacketAsSuch() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bin = folder.appendingPathComponent("app.bin")
        try Data(repeating: 0xA5, count: 1024).write(to: bin)
        let run = await RecordedRun.dfu("inspect", bin.path, "--type", "application")
        #expect(run.code == .success, "\(run.error)")
        let first = run.output.split(separator: "\n").first ?? ""
        #expect(first == "\(bin.path): raw image without an init packet (to upload it, give its --init FILE.dat), 1 part")
        #expect(!run.output.contains("Legacy DFU package"))
    }

    @Test func aBadHexRecordNamesTheFileOnce() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hex = folder.appendingPathComponent("badcs.hex")
        try ":0400000001020304F0\n:00000001FF\n".write(to: hex, atomically: true, encoding: .utf8)
        let run = await RecordedRun.dfu("inspect", hex.path, "--type", "application")
        #expect(run.code == .badPackage)
        #expect(run.error.hasPrefix("dfu: \(hex.path): line 1: "), "\(run.error)")
        #expect(!run.error.contains("badcs.hex: badcs.hex"))
    }

    @Test func anEmptyFileNameIsOneCleanSentence() async {
        let run = await RecordedRun.dfu("inspect", "")
        #expect(run.code == .noInput)
        #expect(run.error == "dfu: cannot read a file: the file name is empty\n")
    }

    @Test func aTruncatedZipSaysSoOnce() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appendingPathComponent("cut.zip")
        let whole = try Data(contentsOf: URL(fileURLWithPath: UploadCommandTests.package("secure-app-1024.zip")))
        try whole.prefix(whole.count - 30).write(to: zip)
        let run = await RecordedRun.dfu("inspect", zip.path)
        #expect(run.code == .badPackage)
        #expect(!run.error.contains("(Not a zip archive)"), "\(run.error)")
    }
}
