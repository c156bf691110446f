import DFUCore
import DFUCrypto
import Testing
import ZipArchive
import DFUFormats

/// Signature checks on `Fixtures/Signing/signed_app.zip`, a package nrfutil 6.1.7 signed with
/// `signing-key.pem` (see the README there).
@Suite(.enabled(if: SharedData.fixtureExists("Signing/signed_app.zip")))
struct SignatureTests {
    static func entries() throws -> [String: [UInt8]] {
        try ZipArchive.readAll(bytes: SharedData.fixture("Signing/signed_app.zip"))
    }

    static func key(_ name: String) throws -> ECDSAP256.PublicKey {
        try ECDSAP256.PublicKey(pem: SharedData.fixture("Signing/\(name)"))
    }

    @Test func withoutAKeyTheSignatureIsNotChecked() throws {
        let report = try DFUPackage.inspect(entries: Self.entries())
        #expect(report.parts.first?.signature == .notChecked)
        #expect(report.parts.first?.imageCheck == .matches(.sha256(.littleEndian)))
        _ = try report.checkedPackage()
    }

    @Test(arguments: ["signing-key.pub.pem", "signing-key.pem"])
    func theSigningKeyVerifiesTheSignature(_ keyFile: String) throws {
        let report = try DFUPackage.inspect(entries: Self.entries(), key: Self.key(keyFile))
        #expect(report.parts.first?.signature == .valid)
        _ = try DFUPackage(entries: Self.entries(), key: Self.key(keyFile))
    }

    @Test func anotherKeyDoesNotVerifyIt() throws {
        let report = try DFUPackage.inspect(entries: Self.entries(), key: Self.key("other-key.pub.pem"))
        #expect(report.parts.first?.signature == .invalid)
        #expect(throws: PackageError.invalidSignature(name: "app.dat")) {
            _ = try DFUPackage(entries: Self.entries(), key: Self.key("other-key.pub.pem"))
        }
        #expect(PackageError.invalidSignature(name: "app.dat").description == "app.dat: init packet signature does not verify with the given key")
    }

    @Test func aTamperedSignatureDoesNotVerify() throws {
        var entries = try Self.entries()
        var dat = try #require(entries["app.dat"])
        dat[dat.count - 1] ^= 0x01  // last byte of s
        entries["app.dat"] = dat
        #expect(throws: PackageError.invalidSignature(name: "app.dat")) {
            _ = try DFUPackage(entries: entries, key: Self.key("signing-key.pem"))
        }
    }

    @Test func aTamperedInitCommandDoesNotVerify() throws {
        var entries = try Self.entries()
        var dat = try #require(entries["app.dat"])
        #expect(dat[9] == 0x08 && dat[10] == 0x07)  // InitCommand.fw_version = 7
        dat[10] = 0x08  // fw_version = 8
        entries["app.dat"] = dat
        let report = try DFUPackage.inspect(entries: entries, key: Self.key("signing-key.pem"))
        #expect(report.parts.first?.signature == .invalid)
    }

    @Test func anUnsignedPackageIsRefusedWhenAKeyIsGiven() throws {
        let report = try DFUPackage.inspect(entries: TestPackages.secureApplication(), key: Self.key("signing-key.pem"))
        #expect(report.parts.first?.signature == .unsigned)
        #expect(throws: PackageError.unsignedInitPacket(name: "app.dat")) { try report.checkedPackage() }
    }
}

/// `Fixtures/Signing/signed_app_boot_validation.zip`: nrfutil 6.1.7 with
/// `VALIDATE_ECDSA_P256_SHA256` boot validation, signed with `signing-key.pem`.
@Suite(.enabled(if: SharedData.fixtureExists("Signing/signed_app_boot_validation.zip")))
struct BootValidationSignatureTests {
    static func entries() throws -> [String: [UInt8]] {
        try ZipArchive.readAll(bytes: SharedData.fixture("Signing/signed_app_boot_validation.zip"))
    }

    @Test func withoutAKeyItIsNotChecked() throws {
        let report = try DFUPackage.inspect(entries: Self.entries())
        #expect(report.parts.first?.bootValidationSignature == .notChecked)
    }

    @Test func theSigningKeyVerifiesTheImageSignature() throws {
        let report = try DFUPackage.inspect(entries: Self.entries(), key: SignatureTests.key("signing-key.pub.pem"))
        #expect(report.parts.first?.signature == .valid)
        #expect(report.parts.first?.bootValidationSignature == .valid)
        _ = try report.checkedPackage()
    }

    @Test func anotherKeyDoesNotVerifyIt() throws {
        let report = try DFUPackage.inspect(entries: Self.entries(), key: SignatureTests.key("other-key.pub.pem"))
        #expect(report.parts.first?.bootValidationSignature == .invalid)
    }

    @Test func aChangedImageFailsTheBootValidationSignatureButNotTheInitPacketSignature() throws {
        // The init packet signature covers the InitCommand only; the boot validation signature
        // covers the image itself.
        var entries = try Self.entries()
        var image = try #require(entries["app.bin"])
        image[0] ^= 0xFF
        entries["app.bin"] = image
        let report = try DFUPackage.inspect(entries: entries, key: SignatureTests.key("signing-key.pem"))
        #expect(report.parts.first?.bootValidationSignature == .invalid)
        #expect(report.parts.first?.imageCheck == .mismatch(.sha256(.littleEndian)))
        #expect(report.parts.first?.signature == .valid)
    }

    @Test func unsignedBootValidationIsReportedAsSuch() throws {
        let report = try DFUPackage.inspect(entries: SignatureTests.entries(), key: SignatureTests.key("signing-key.pem"))
        // signed_app.zip uses VALIDATE_GENERATED_CRC: nothing to verify.
        #expect(report.parts.first?.bootValidationSignature == .unsigned)
    }
}

/// Legacy packages made by nrfutil 0.5.3 (see `Fixtures/Signing/README.md`).
@Suite(.enabled(if: SharedData.fixtureExists("Signing/legacy_signed_app.zip")))
struct LegacySignatureTests {
    static func entries(_ name: String) throws -> [String: [UInt8]] {
        try ZipArchive.readAll(bytes: SharedData.fixture("Signing/\(name)"))
    }

    @Test func dfuVersion07CarriesLengthAndPlainOrderSHA256() throws {
        let report = try DFUPackage.inspect(entries: Self.entries("legacy_hash_app.zip"))
        #expect(report.dfuVersion == 0.7)
        let part = try #require(report.parts.first)
        guard case .legacy(let packet) = part.initPacket else { throw Failure.notLegacy }
        #expect(packet.extensionID == 1)
        #expect(packet.integrity == .sha256(length: 1028, hash: part.sha256))
        #expect(part.imageCheck == .matches(.sha256(.bigEndian)))
        #expect(part.signature == .unsigned)
        _ = try report.checkedPackage()
    }

    @Test func dfuVersion08SignatureVerifiesWithTheSigningKeyOnly() throws {
        let entries = try Self.entries("legacy_signed_app.zip")
        let unchecked = try DFUPackage.inspect(entries: entries)
        #expect(unchecked.parts.first?.signature == .notChecked)
        guard case .legacy(let packet) = unchecked.parts.first?.initPacket else { throw Failure.notLegacy }
        #expect(packet.header == LegacyInitPacket.Header(deviceType: 0x52, deviceRevision: 1, applicationVersion: 9, softdeviceRequirements: [0xFFFE]))
        #expect(packet.extensionID == 2)

        let valid = try DFUPackage.inspect(entries: entries, key: SignatureTests.key("signing-key.pub.pem"))
        #expect(valid.parts.first?.signature == .valid)
        #expect(valid.parts.first?.imageCheck == .matches(.sha256(.bigEndian)))
        _ = try valid.checkedPackage()

        #expect(throws: PackageError.invalidSignature(name: "app.dat")) {
            _ = try DFUPackage(entries: entries, key: SignatureTests.key("other-key.pub.pem"))
        }
    }

    enum Failure: Error { case notLegacy }
}
