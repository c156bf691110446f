import DFUCommand
import Foundation
import Testing
import TestSupport

/// MCUboot's imgtool run at test time (from `.build/mcuboot-venv`, made by
/// `Tests/Fixtures/mcuboot/imgtool-venv.sh`, which `make test-unit` runs): images signed now, with
/// a random body and version, must get imgtool's verdict from `dfu inspect`, and the committed
/// table must still be what imgtool says.
@Suite(.enabled(if: MCUbootFiles.imgtoolInstalled, "needs imgtool in .build/mcuboot-venv (Tests/Fixtures/mcuboot/imgtool-venv.sh)"))
struct ImgtoolLiveTests {
    static let imgtool = MCUbootFiles.imgtool

    /// `imgtool verify`'s verdict and digest.
    static func verify(_ file: String, key: String?) async throws -> (verdict: String, digest: String?) {
        let run = try await ToolRun.run(imgtool, ["verify"] + (key.map { ["-k", MCUbootFiles.key($0)] } ?? []) + [file], timeout: .seconds(60))
        let digest = run.output.split(separator: "\n").first { $0.hasPrefix("Image digest: ") }.map { String($0.dropFirst(14)) }
        if run.output.contains("correctly validated") { return ("OK", digest) }
        if run.output.contains("invalid hash") { return ("INVALID_HASH", nil) }
        if run.output.contains("No signature found") { return ("INVALID_SIGNATURE", nil) }
        if run.output.contains("Invalid image magic") { return ("INVALID_MAGIC", nil) }
        if run.output.contains("Invalid TLV info magic") { return ("INVALID_TLV_INFO_MAGIC", nil) }
        if run.output.contains("Key type does not match") { return ("KEY_MISMATCH", nil) }
        return ("CRASH", nil)
    }

    @Test(arguments: ["ecdsa-p256", "ed25519", "rsa-2048", "rsa-3072"])
    func imageSignedNowIsAcceptedWithImgtoolsDigestAndRefusedOnceTampered(_ key: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-imgtool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SystemRandomNumberGenerator()
        let body = (0..<Int.random(in: 1...6000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let input = folder.appendingPathComponent("body.bin")
        try Data(body).write(to: input)
        let version = "\(Int.random(in: 0...255)).\(Int.random(in: 0...255)).\(Int.random(in: 0...65535))+\(Int.random(in: 0...100_000))"
        let signed = folder.appendingPathComponent("signed.bin").path
        let sign = try await ToolRun.run(
            Self.imgtool,
            ["sign", "-k", MCUbootFiles.path("keys/\(key).pem"), "--header-size", "0x200", "--pad-header", "--align", "4",
             "--slot-size", "0x20000", "--version", version, "--security-counter", "\(Int.random(in: 0...1000))", input.path, signed],
            timeout: .seconds(60))
        try #require(sign.status == 0, "\(sign.output)")

        let verdict = try await Self.verify(signed, key: key)
        #expect(verdict.verdict == "OK")
        let run = await RecordedRun.dfu("inspect", signed, "--key", MCUbootFiles.key(key), "--json")
        #expect(run.code == .success, "\(run.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let image = try #require((object["images"] as? [[String: Any]])?.first)
        #expect(image["hash_sha256"] as? String == verdict.digest)
        #expect(image["signature_ok"] as? Bool == true)
        #expect(image["signature_type"] as? String == key)
        #expect(image["version"] as? String == version)

        // One body byte changed: imgtool says invalid hash; dfu refuses with exit 65.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: signed)))
        bytes[0x200 + Int.random(in: 0..<body.count)] ^= 0x01
        let tampered = folder.appendingPathComponent("tampered.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: tampered))
        #expect(try await Self.verify(tampered, key: key).verdict == "INVALID_HASH")
        let refused = await RecordedRun.dfu("inspect", tampered, "--key", MCUbootFiles.key(key))
        #expect(refused.code == .badPackage)
        #expect(refused.errorLines == ["dfu: \(tampered): the image does not match its hash TLV: it was changed after signing"])
    }

    @Test func committedVerdictsWithoutKeyAreStillImgtools() async throws {
        for row in MCUbootFiles.cases where row.key == nil {
            let now = try await Self.verify(MCUbootFiles.path(row.file), key: nil)
            #expect(now.verdict == row.imgtool, "\(row.file)")
        }
    }
}
