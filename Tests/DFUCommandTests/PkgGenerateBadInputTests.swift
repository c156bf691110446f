import DFUCommand
import Foundation
import Testing

/// Bad input to `dfu pkg generate`: one line naming the file or option and the cause, the
/// documented exit code, and never a partial OUT.zip (an existing one is left as it was).
@Suite struct PkgGenerateBadInputTests {
    static let app = NrfutilFixtures.inputs.appendingPathComponent("app.bin").path
    static let common = ["--application-version", "1", "--hw-version", "52", "--sd-req", "0xB7"]

    /// Writes `text` to a file named `name` in a fresh folder.
    static func file(_ name: String, _ text: String) throws -> String {
        let url = try NrfutilFixtures.temporaryFolder().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Runs `dfu pkg generate` with `arguments` into a folder that already holds an OUT.zip.
    static func generate(_ arguments: [String]) async throws -> (RecordedRun, URL) {
        let folder = try NrfutilFixtures.temporaryFolder()
        let out = folder.appendingPathComponent("out.zip")
        try Data("previous".utf8).write(to: out)
        let run = await RecordedRun.dfu(arguments: ["pkg", "generate"] + arguments + [out.path])
        #expect(try String(contentsOf: out, encoding: .utf8) == "previous", "OUT.zip is left as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.zip"], "no temporary file is left")
        #expect(run.errorLines.count == 1, "\(run.error)")
        return (run, out)
    }

    @Test func missingImageExits66NamingTheFile() async throws {
        let (run, _) = try await Self.generate(["--application", "/nonexistent/app.bin"] + Self.common)
        #expect(run.code == .noInput)
        #expect(run.error == "dfu: /nonexistent/app.bin: cannot read: no such file\n")
    }

    @Test func hexWithABadChecksumExits65NamingTheLine() async throws {
        let hex = try Self.file("app.hex", ":020000040002F8\n:04600000DEADBEEF00\n:00000001FF\n")
        let (run, _) = try await Self.generate(["--application", hex] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error == "dfu: \(hex): line 2: checksum mismatch\n")
    }

    @Test func hexWithOnlyMBRDataExits65() async throws {
        // nrfutil drops everything below 0x1000; with nothing left it has no image (and crashes).
        let hex = try Self.file("app.hex", ":0400000001020304F2\n:00000001FF\n")
        let (run, _) = try await Self.generate(["--application", hex] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error.contains("holds no data between 0x1000 and 0x10000000"), "\(run.error)")
    }

    @Test func hexSpanningMoreThan16MiBDoesNotFitAndExits65() async throws {
        // 0x1000 and 0x2001000: a flat image of 32 MiB, larger than any nRF5 flash.
        let hex = try Self.file("app.hex", ":0410000001020304E2\n:020000040200F8\n:0410000001020304E2\n:00000001FF\n")
        let (run, _) = try await Self.generate(["--application", hex] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error.contains("more than the 16777216 an image may have"), "\(run.error)")
    }

    @Test func emptyBinExits65() async throws {
        let bin = try Self.file("app.bin", "")
        let (run, _) = try await Self.generate(["--application", bin] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error == "dfu: \(bin): the file is empty\n")
    }

    @Test func keyThatIsNotPEMExits65() async throws {
        let key = try Self.file("key.pem", "not a key\n")
        let (run, _) = try await Self.generate(["--application", Self.app, "--key-file", key] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error == "dfu: \(key): not a PEM private key\n")
    }

    @Test func publicKeyInsteadOfPrivateExits65() async throws {
        let (run, _) = try await Self.generate(["--application", Self.app, "--key-file", NrfutilFixtures.testPublicKey] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error.hasSuffix("test-public.pem: not a PEM private key\n"), "\(run.error)")
    }

    @Test func missingKeyExits66() async throws {
        let (run, _) = try await Self.generate(["--application", Self.app, "--key-file", "/nonexistent/key.pem"] + Self.common)
        #expect(run.code == .noInput)
    }

    @Test func nonP256KeyExits65() async throws {
        // A P-384 private key (SEC 1 PEM made by `openssl ecparam -name secp384r1 -genkey`).
        let key = try Self.file("p384.pem", """
            -----BEGIN EC PRIVATE KEY-----
            MIGkAgEBBDCjHR8rqpRtaDuuoMYf9rh3TY2A+iEyoiYjUMKlqfC5WREK+HVRbjwP
            pJOqAlUCS5egBwYFK4EEACKhZANiAATXbUkoQtDPJHhvJhTv8JWzwZt+9Cs4o7IU
            ZYmNYGkdK0V0CiJyFLdHtbGHNb6XmJ3PAOunHa9pi/tmithb5MY2C+bhnBiQLeo2
            DWkHnWfby5/k9kmbUfaU3TYkMB2q6hU=
            -----END EC PRIVATE KEY-----

            """)
        let (run, _) = try await Self.generate(["--application", Self.app, "--key-file", key] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error == "dfu: \(key): not an ECDSA P-256 key\n")
    }

    @Test func encryptedKeyExits65WithoutAskingForAPassphrase() async throws {
        // `openssl ec -aes128`: OpenSSL would prompt on the terminal if asked to decrypt it.
        let key = TestData.fixtures.appendingPathComponent("keys/encrypted-private.pem").path
        let (run, _) = try await Self.generate(["--application", Self.app, "--key-file", key] + Self.common)
        #expect(run.code == .badPackage)
        #expect(run.error == "dfu: \(key): an encrypted private key (remove the passphrase first)\n")
    }

    @Test func twoImagesWithTheSameNameInThePackageAreRefused() async throws {
        // nrfutil would silently reuse the first image for both parts.
        let other = try Self.file("app.bin", "0123")
        let (run, _) = try await Self.generate(
            ["--softdevice", other, "--application", Self.app, "--sd-id", "0x101"] + Self.common)
        #expect(run.code == .usage)
        #expect(run.error.contains("would both be app.bin in the package"), "\(run.error)")
    }

    @Test func unwritableOutputExits73AndLeavesNothing() async throws {
        let run = await RecordedRun.dfu(arguments: ["pkg", "generate", "--application", Self.app] + Self.common + ["/nonexistent/out.zip"])
        #expect(run.code == .cannotCreate)
        #expect(run.error == "dfu: /nonexistent/out.zip: cannot write: no such directory\n")
    }

    @Test func sourceDateEpochMakesTheWholeZipReproducible() async throws {
        let folder = try NrfutilFixtures.temporaryFolder()
        var zips: [Data] = []
        for name in ["a.zip", "b.zip"] {
            let out = folder.appendingPathComponent(name).path
            let run = await RecordedRun.dfu(
                arguments: ["pkg", "generate", "--application", Self.app] + Self.common + [out],
                environment: ["SOURCE_DATE_EPOCH": "1700000000"])
            #expect(run.code == .success, "\(run.error)")
            zips.append(try Data(contentsOf: URL(fileURLWithPath: out)))
            try await Task.sleep(for: .milliseconds(2100))  // past the zip format's 2-second time step
        }
        #expect(zips[0] == zips[1])
    }

    @Test func pkgWithoutSubcommandNamesTheChoices() async {
        let run = await RecordedRun.dfu("pkg")
        #expect(run.code == .usage)
        #expect(run.error.hasPrefix("dfu: missing command after 'pkg'; expected pkg generate, pkg display"), "\(run.error)")
    }

    @Test func pkgDisplayIsInspect() async {
        let package = NrfutilFixtures.folder.appendingPathComponent("packages/sd-bl-app.zip").path
        let display = await RecordedRun.dfu("pkg", "display", package)
        let inspect = await RecordedRun.dfu("inspect", package)
        #expect(display.code == .success)
        #expect(display.output == inspect.output)
    }
}

/// Legacy packages (`--dfu-ver`): only 0.5 and 0.6, and only adafruit-nrfutil's options.
@Suite struct PkgGenerateLegacyOptionTests {
    static let app = NrfutilFixtures.inputs.appendingPathComponent("app.bin").path

    @Test(arguments: [
        (["--dfu-ver", "0.7"], "--dfu-ver 0.7 (SHA-256 or signed Legacy packages) is not supported"),
        (["--dfu-ver", "0.8"], "--dfu-ver 0.8 (SHA-256 or signed Legacy packages) is not supported"),
        (["--dfu-ver", "1.0"], "option --dfu-ver: '1.0' is not 0.5 or 0.6"),
        (["--dfu-ver", "0.5", "--hw-version", "52"], "--hw-version is an option of Secure packages"),
        (["--dfu-ver", "0.5", "--key-file", "k.pem"], "--key-file is an option of Secure packages"),
        (["--dfu-ver", "0.5", "--debug-mode"], "--debug-mode is an option of Secure packages"),
        (["--dfu-ver", "0.5", "--dev-type", "0x10000"], "option --dev-type: 65536 does not fit the 16 bits"),
        (["--dfu-ver", "0.5", "--sd-req", "0x10000"], "option --sd-req: 65536 does not fit the 16 bits"),
        (["--dev-type", "0x52", "--hw-version", "52", "--sd-req", "0xB7", "--application-version", "1"],
         "--dev-type is an option of Legacy packages: add --dfu-ver 0.5 or 0.6"),
    ])
    func refusedWithOneLineAndExit64(_ arguments: [String], _ message: String) async throws {
        let out = try NrfutilFixtures.temporaryFolder().appendingPathComponent("out.zip")
        let run = await RecordedRun.dfu(arguments: ["pkg", "generate", "--application", Self.app] + arguments + [out.path])
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.contains(message), "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
