import DFUCommand
import Foundation
import Testing

/// `dfu inspect` on MCUboot images and nRF Connect SDK zips made by imgtool
/// (Tests/Fixtures/mcuboot), and `dfu upload`'s reading of them.
@Suite(.enabled(if: MCUbootFiles.present, "needs Tests/Fixtures/mcuboot"))
struct InspectMCUbootTests {
    static let cases = MCUbootFiles.cases
    static func path(_ relative: String) -> String { MCUbootFiles.path(relative) }
    static func key(_ name: String) -> String { MCUbootFiles.key(name) }

    @Test(arguments: cases)
    func inspectGivesImgtoolsVerdict(_ row: MCUbootFiles.Row) async {
        let file = Self.path(row.file)
        let run = await RecordedRun.dfu(arguments: ["inspect", file, "--json"] + (row.key.map { ["--key", Self.key($0)] } ?? []))
        switch row.imgtool {
        case "OK":
            #expect(run.code == .success, "\(run.error)")
            #expect(run.output.contains(#""hash_ok":true"#))
            #expect(run.output.contains(row.key == nil ? #""signature_ok":null"# : #""signature_ok":true"#))
        case "INVALID_HASH" where row.file.hasSuffix("encrypted.bin"):
            // imgtool hashes the ciphertext; MCUboot's hash covers the plaintext: not checkable here.
            #expect(run.output.contains(#""hash_ok":null"#) || run.code == .badPackage)
        case "INVALID_MAGIC":
            // Not an MCUboot image, so a raw nRF5 image without --type: a usage error that says why.
            #expect(run.code == .usage)
            #expect(run.error.contains("it is not an MCUboot image (it does not start with the magic 0x96f3b83d)"))
        default:
            // Tampered, truncated or malformed, or a signature that does not verify with the key:
            // refused with one line naming the file and the cause, nothing on standard output.
            #expect(run.code == .badPackage, "\(run.error)")
            #expect(run.output.isEmpty)
            #expect(run.errorLines.count == 1)
            #expect(run.error.hasPrefix("dfu: \(file): "))
        }
    }

    @Test func jsonOfTheApplicationZipHasExactlyTheDocumentedFields() async throws {
        let run = await RecordedRun.dfu("inspect", Self.path("dfu_application.zip"), "--key", Self.key("ecdsa-p256"), "--json")
        #expect(run.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["format", "images"])
        #expect(object["format"] as? String == "mcuboot")
        let images = try #require(object["images"] as? [[String: Any]])
        #expect(images.count == 2)
        for image in images {
            #expect(
                Set(image.keys) == [
                    "image_index", "file", "version", "header_size", "image_size", "load_address", "flags", "hash_sha256",
                    "hash_ok", "key_hash", "signature_type", "signature_ok",
                ])
        }
        #expect(images.map { $0["image_index"] as? Int } == [0, 1])
        #expect(images.map { $0["file"] as? String } == ["app_update.bin", "net_core_app_update.bin"])
        #expect(images.map { $0["version"] as? String } == ["1.4.0+0", "1.4.0+0"])
        #expect(images.map { $0["header_size"] as? Int } == [512, 512])
        #expect(images.map { $0["image_size"] as? Int } == [3000, 1500])
        #expect(images.map { $0["signature_type"] as? String } == ["ecdsa-p256", "ecdsa-p256"])
        #expect(images.map { $0["signature_ok"] as? Bool } == [true, true])
        #expect(images.map { $0["hash_ok"] as? Bool } == [true, true])
        let keyHash = try String(contentsOfFile: Self.path("keys/ecdsa-p256.keyhash"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(images.map { $0["key_hash"] as? String } == [keyHash, keyHash])
        // The hash is the SHA256 TLV, as imgtool verify printed it.
        let table = try String(contentsOfFile: Self.path("expected.tsv"), encoding: .utf8)
        for image in images {
            let digest = try #require(image["hash_sha256"] as? String)
            #expect(table.contains("dfu_application.zip/\(image["file"] as? String ?? "")\t-\tOK\t1.4.0+0\t\(digest)"))
        }
    }

    @Test func jsonWithoutKeyHasNullSignatureVerdictAndUnsignedHasNullType() async throws {
        let run = await RecordedRun.dfu("inspect", Self.path("images/unsigned.bin"), "--json")
        #expect(run.code == .success)
        #expect(run.output.contains(#""signature_ok":null"#))
        #expect(run.output.contains(#""signature_type":null"#))
        #expect(run.output.contains(#""key_hash":null"#))
        #expect(run.output.contains(#""image_index":0"#))
    }

    @Test func textShowsEveryImageWithItsTLVsAndVerdicts() async {
        let run = await RecordedRun.dfu("inspect", Self.path("dfu_application.zip"), "--key", Self.key("ecdsa-p256"))
        #expect(run.code == .success)
        #expect(run.output.contains("nRF Connect SDK package of MCUboot images (manifest format-version 1), 2 images"))
        #expect(run.output.contains("Image 0: app_update.bin"))
        #expect(run.output.contains("Image 1: net_core_app_update.bin"))
        #expect(run.output.contains("slot 3 (secondary 4), load address 0x01008800, version 1.4.0+0"))
        #expect(run.output.contains("ECDSA_SIG"))
        #expect(run.output.contains("(the given key)"))
        #expect(run.output.contains("signature       ecdsa-p256, valid"))
        #expect(run.output.contains("hash check      matches"))
    }

    @Test func textNamesProtectedTLVsAndTheTrailer() async {
        let counter = await RecordedRun.dfu("inspect", Self.path("images/security-counter.bin"))
        #expect(counter.output.contains("SEC_CNT (protected, 4 bytes) 7"))
        let padded = await RecordedRun.dfu("inspect", Self.path("images/padded-confirmed.bin"))
        #expect(padded.output.contains("padded to 8192 bytes, confirmed"))
        let hex = await RecordedRun.dfu("inspect", Self.path("images/signed.hex"))
        #expect(hex.output.contains("MCUboot image in Intel HEX at 0x0000c000"))
    }

    @Test func nrf5RawImageOptionsAreRefusedForAnMCUbootImage() async {
        let file = Self.path("images/ecdsa-p256.bin")
        let run = await RecordedRun.dfu("inspect", file, "--type", "application", "--init", "app.dat")
        #expect(run.code == .usage)
        #expect(run.errorLines == ["dfu: --init, --sd-size and --bl-size are for nRF5 raw images; \(file) is an MCUboot image (see 'dfu inspect --help')"])
    }

    @Test func keyOfAnotherKindIsNamed() async {
        let run = await RecordedRun.dfu("inspect", Self.path("images/rsa-2048.bin"), "--key", Self.key("ed25519"))
        #expect(run.code == .badPackage)
        #expect(run.errorLines == [
            "dfu: \(Self.path("images/rsa-2048.bin")): the image signature cannot be checked with the given key (the image is signed with rsa-2048, the key is Ed25519)"
        ])
    }

    @Test func ed25519KeyIsStillRefusedForAnNRF5Package() async throws {
        let package = TestData.fixtures.appendingPathComponent("packages").path
        let zip = try #require(try FileManager.default.contentsOfDirectory(atPath: package).first { $0.hasSuffix(".zip") },
                               "no committed nRF5 package in \(package)")
        let run = await RecordedRun.dfu("inspect", package + "/" + zip, "--key", Self.key("ed25519"))
        #expect(run.code == .usage)
        #expect(run.error.contains("option --key: \(Self.key("ed25519")): not an ECDSA P-256 key"))
    }

    @Test(arguments: ["images/ecdsa-p256.bin", "images/signed.hex", "dfu_application.zip"])
    func uploadTakesMCUbootFilesAndGoesOnToTheDevice(_ file: String) async {
        let path = Self.path(file)
        // Read and checked, the file is for SMP: without a Bluetooth stack the run stops at the link (exit 69).
        let run = await RecordedRun.dfu(arguments: ["upload", path, "--device", "C0:FF:EE:00:12:34"])
        #expect(run.code == .unavailable)
        #expect(run.output.isEmpty)
        #expect(run.errorLines.count == 1)
    }

    @Test(arguments: ["images/ecdsa-p256.bin", "images/signed.hex"])
    func uploadRefusesNRF5RawImageOptionsForAnMCUbootImage(_ file: String) async {
        let path = Self.path(file)
        let run = await RecordedRun.dfu(arguments: ["upload", path, "--device", "C0:FF:EE:00:12:34", "--type", "application", "--init", "app.dat"])
        #expect(run.code == .usage)
        #expect(run.errorLines == [
            "dfu: --init, --sd-size and --bl-size are for nRF5 raw images; \(path) is an MCUboot image (see 'dfu upload --help')"
        ])
    }

    @Test func uploadRefusesATamperedMCUbootImageBeforeAnyDevice() async {
        let path = Self.path("images/tampered-body.bin")
        let run = await RecordedRun.dfu(arguments: ["upload", path, "--device", "C0:FF:EE:00:12:34"])
        #expect(run.code == .badPackage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.hasPrefix("dfu: \(path): "), "\(run.error)")
    }
}
