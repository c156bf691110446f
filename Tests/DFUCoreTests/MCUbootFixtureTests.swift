import DFUCore
import DFUCrypto
import Foundation
import Testing
import ZipArchive
import DFUFormats

/// Every image imgtool 2.5.0 made, read and checked by the reader, against the verdict
/// `imgtool verify` gave it (Tests/Fixtures/mcuboot/expected.tsv).
@Suite(.enabled(if: MCUbootFixture.isPresent, "needs Tests/Fixtures/mcuboot"))
struct MCUbootFixtureTests {
    /// The reader's verdict in imgtool's words.
    static func verdict(of row: MCUbootFixture.Row) throws -> (verdict: String, report: MCUbootImageReport?) {
        let key = try row.key.map(MCUbootFixture.key)
        let report: MCUbootPackageReport
        do {
            if row.file.hasPrefix("dfu_application.zip/") {
                let entries = try ZipArchive.readAll(bytes: MCUbootFixture.bytes("dfu_application.zip"))
                report = try MCUbootPackageReport.inspect(entries: entries, key: key)
                let member = String(row.file.dropFirst("dfu_application.zip/".count))
                guard let image = report.images.first(where: { $0.name == member }) else { return ("MISSING", nil) }
                return (try Self.word(image, keyWasGiven: key != nil), image)
            }
            report = try MCUbootPackageReport.inspect(file: MCUbootFixture.bytes(row.file), name: row.file, key: key)
        } catch let error as MCUbootError {
            switch error {
            case .notAnImage: return ("INVALID_MAGIC", nil)
            default: return ("REFUSED", nil)
            }
        }
        return (try Self.word(report.images[0], keyWasGiven: key != nil), report.images[0])
    }

    private static func word(_ image: MCUbootImageReport, keyWasGiven: Bool) throws -> String {
        do {
            try image.check(keyWasGiven: keyWasGiven)
            return "OK"
        } catch {
            switch error {
            case .hashMismatch, .missingHash: return "INVALID_HASH"
            case .invalidSignature, .unsigned, .unverifiableSignature: return "INVALID_SIGNATURE"
            default: return "REFUSED"
            }
        }
    }

    @Test(arguments: MCUbootFixture.rows)
    func readerGivesImgtoolsVerdict(_ row: MCUbootFixture.Row) throws {
        let (verdict, report) = try Self.verdict(of: row)
        switch row.imgtool {
        case "OK":
            #expect(verdict == "OK")
            #expect(report?.image.version.description == row.version)
            // imgtool prints the digest it recomputed; it is the SHA256 TLV (the image hash SMP shows).
            #expect(report?.image.tlvs.first { [0x10, 0x11, 0x12].contains($0.type) }?.value.hexString == row.digest)
            #expect(report?.hashCheck == .matches)
            #expect(report?.signature == (row.key == nil ? (report?.signatureType == nil ? .unsigned : .notChecked) : .valid))
        case "INVALID_HASH" where row.file.hasSuffix("encrypted.bin"):
            // imgtool verify hashes the ciphertext; MCUboot hashes the decrypted body
            // (bootutil_img_hash), so the hash cannot be checked without the device's key. The
            // signature covers the SHA256 TLV and still verifies.
            #expect(report?.hashCheck == .notCheckable(reason: "the body is encrypted and the hash covers its plaintext"))
            #expect(report?.image.flags.isEncrypted == true)
            #expect(verdict == (row.key == nil || row.key == "ecdsa-p256" ? "OK" : "INVALID_SIGNATURE"))
        case "INVALID_HASH", "INVALID_SIGNATURE", "INVALID_MAGIC":
            #expect(verdict == row.imgtool)
        case "KEY_MISMATCH":
            // imgtool: the key's kind does not go with the image's hash TLV (a P-256 key for a
            // SHA384 image). Refused: the hash does not match, or the signature is of another kind.
            #expect(verdict == "INVALID_SIGNATURE" || verdict == "INVALID_HASH")
        case "INVALID_TLV_INFO_MAGIC", "CRASH":
            // Refused as malformed or truncated (imgtool itself crashes on the truncated ones).
            #expect(verdict == "REFUSED")
        default:
            Issue.record("unexpected imgtool verdict \(row.imgtool)")
        }
    }

    @Test(arguments: ["ecdsa-p256", "ed25519", "rsa-2048", "rsa-3072"])
    func keyHashIsTheSHA256OfTheKeyBytesImgtoolEmbeds(_ name: String) throws {
        let key = try MCUbootFixture.key(name)
        let expected = String(decoding: try MCUbootFixture.bytes("keys/\(name).keyhash"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(SHA256.digest(key.mcubootKeyBytes).hexString == expected)
        // The private key file gives the same public half.
        #expect(try VerifyingKey(pem: MCUbootFixture.bytes("keys/\(name).pem")).mcubootKeyBytes == key.mcubootKeyBytes)
    }

    @Test func signedImageNamesItsKeyByHash() throws {
        let key = try MCUbootFixture.key("rsa-3072")
        let report = try MCUbootPackageReport.inspect(file: MCUbootFixture.bytes("images/rsa-3072.bin"), name: "rsa-3072.bin", key: key)
        #expect(report.images[0].keyMatches == true)
        #expect(report.images[0].signatureType == .rsa3072)
        let other = try MCUbootPackageReport.inspect(
            file: MCUbootFixture.bytes("images/rsa-3072.bin"), name: "rsa-3072.bin", key: MCUbootFixture.key("rsa-2048"))
        #expect(other.images[0].keyMatches == false)
    }

    @Test func fullPublicKeyTLVIsComparedWithTheKey() throws {
        let report = try MCUbootPackageReport.inspect(
            file: MCUbootFixture.bytes("images/full-pubkey.bin"), name: "full-pubkey.bin", key: MCUbootFixture.key("ecdsa-p256"))
        #expect(report.images[0].image.tlv(MCUbootTLV.publicKey) != nil)
        #expect(report.images[0].keyMatches == true)
        #expect(report.images[0].signature == .valid)
    }

    @Test func securityCounterAndBootRecordAreProtectedTLVs() throws {
        let counter = try MCUbootImage(bytes: MCUbootFixture.bytes("images/security-counter.bin"), name: "security-counter.bin")
        #expect(counter.securityCounter == 7)
        #expect(counter.protectedTLVSize == 4 + 4 + 4)  // info header + SEC_CNT header + u32
        #expect(counter.tlvs.filter(\.isProtected).map(\.name) == ["SEC_CNT"])
        let record = try MCUbootImage(bytes: MCUbootFixture.bytes("images/boot-record.bin"), name: "boot-record.bin")
        #expect(record.tlvs.filter(\.isProtected).map(\.name) == ["BOOT_RECORD", "unknown tag 0xa0"])
    }

    @Test func paddedImageShowsItsConfirmedTrailer() throws {
        let image = try MCUbootImage(bytes: MCUbootFixture.bytes("images/padded-confirmed.bin"), name: "padded-confirmed.bin")
        #expect(image.bytes.count == 0x2000)
        #expect(image.trailer == .confirmed)
        #expect(image.tlvEnd < image.bytes.count)
        let plain = try MCUbootImage(bytes: MCUbootFixture.bytes("images/unsigned.bin"), name: "unsigned.bin")
        #expect(plain.trailer == nil)
        #expect(plain.tlvEnd == plain.bytes.count)
    }

    @Test func headerFieldsAreRead() throws {
        let image = try MCUbootImage(bytes: MCUbootFixture.bytes("images/header-0x20.bin"), name: "header-0x20.bin")
        #expect(image.headerSize == 0x20)
        #expect(image.imageSize == 100)
        #expect(image.version == MCUbootVersion(major: 255, minor: 255, revision: 65535, build: 4_294_967_295))
        #expect(image.flags == .nonBootable)
        let fixed = try MCUbootImage(bytes: MCUbootFixture.bytes("images/rom-fixed.bin"), name: "rom-fixed.bin")
        #expect(fixed.flags == .romFixed)
        #expect(fixed.loadAddress == 0x10000)
        let encrypted = try MCUbootImage(bytes: MCUbootFixture.bytes("images/encrypted.bin"), name: "encrypted.bin")
        #expect(encrypted.flags == .encryptedAES128)
        #expect(encrypted.tlvs.map(\.name).contains("ENC_EC256"))
    }

    @Test func p384ImageIsNamedByItsHashAndChecked() throws {
        let report = try MCUbootPackageReport.inspect(file: MCUbootFixture.bytes("images/ecdsa-p384.bin"), name: "ecdsa-p384.bin")
        #expect(report.images[0].signatureType == .ecdsaP384)
        #expect(report.images[0].image.tlv(MCUbootTLV.sha384)?.value.count == 48)
        #expect(report.images[0].hashCheck == .matches)
        #expect(report.images[0].image.imageHash == nil)  // no SHA256 TLV: hash_sha256 is null
        let withKey = try MCUbootPackageReport.inspect(
            file: MCUbootFixture.bytes("images/ecdsa-p384.bin"), name: "ecdsa-p384.bin", key: MCUbootFixture.key("ecdsa-p256"))
        #expect(withKey.images[0].signature == .unverifiable(reason: "an ECDSA P-256 signature over a 384-bit digest is not supported here"))
    }

    @Test func intelHexImageIsFlattenedFromItsLowestAddress() throws {
        let report = try MCUbootPackageReport.inspect(file: MCUbootFixture.bytes("images/signed.hex"), name: "signed.hex")
        #expect(report.hexBaseAddress == 0xC000)
        #expect(report.images[0].hashCheck == .matches)
        #expect(report.images[0].image.version.description == "1.2.3+0")
    }

    @Test func applicationZipHoldsTheApplicationAndNetworkCoreImages() throws {
        let entries = try ZipArchive.readAll(bytes: MCUbootFixture.bytes("dfu_application.zip"))
        let report = try MCUbootPackageReport.inspect(entries: entries, key: MCUbootFixture.key("ecdsa-p256"))
        try report.check()
        #expect(report.images.map(\.name) == ["app_update.bin", "net_core_app_update.bin"])
        #expect(report.images.map(\.imageIndex) == [0, 1])
        #expect(report.images.map { $0.manifestEntry?.slot } == [1, 3])
        #expect(report.images.map { $0.manifestEntry?.secondarySlot } == [2, 4])
        #expect(report.images.map { $0.manifestEntry?.loadAddress } == [0x10000, 0x100_8800])
        #expect(report.images.map { $0.manifestEntry?.version } == ["1.4.0+0", "1.4.0+0"])
        #expect(report.images.map { $0.manifestEntry?.soc } == ["nrf5340", "nrf5340"])
        #expect(report.manifest?.formatVersion == 1)
        // The same zip is not an nRF5 package, and says so.
        #expect(throws: PackageError.mcubootPackage) { try DFUPackage.inspect(entries: entries) }
    }
}
