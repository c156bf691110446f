import Foundation
import Testing

/// The built `dfu` executable making packages: the exit status and the streams of a real process,
/// as a build script sees them.
@Suite struct PkgGenerateExecutableTests {
    static let app = NrfutilFixtures.inputs.appendingPathComponent("app.hex").path

    @Test func processMakesThePackageAndSaysWhereOnStandardOutput() async throws {
        let out = try NrfutilFixtures.temporaryFolder().appendingPathComponent("app.zip").path
        let outcome = try await ExecutableTests.run([
            "pkg", "generate", "--application", Self.app, "--application-version", "1", "--hw-version", "52",
            "--sd-req", "0xB7", "--key-file", NrfutilFixtures.testPrivateKey, out,
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.output == "Zip created at \(out)\n")
        #expect(outcome.error.isEmpty, "signed: no warning")
        let inspect = try await ExecutableTests.run(["pkg", "display", out, "--key", NrfutilFixtures.testPublicKey])
        #expect(inspect.status == 0, "\(inspect.error)")
    }

    @Test func processRefusesNrfutilsRefusedCombinationWith64AndOneLine() async throws {
        let out = try NrfutilFixtures.temporaryFolder().appendingPathComponent("app.zip").path
        let outcome = try await ExecutableTests.run([
            "pkg", "generate", "--bootloader", Self.app, "--bootloader-version", "1", "--application", Self.app,
            "--application-version", "1", "--hw-version", "52", "--sd-req", "0xB7", out,
        ])
        #expect(outcome.status == 64)
        #expect(outcome.output.isEmpty)
        #expect(outcome.error.split(separator: "\n").count == 1, "\(outcome.error)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// An encrypted key (`openssl ec -aes128`) read in a terminal: refused at once, never OpenSSL's
    /// passphrase prompt (which would wait for the user), for `--key-file`, `keys display` and `--key`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func encryptedKeyInATerminalIsRefusedWithoutAPassphrasePrompt() async throws {
        // `openssl ec -aes128`: OpenSSL would prompt on the terminal if asked to decrypt it.
        let key = TestData.fixtures.appendingPathComponent("keys/encrypted-private.pem")
        let package = NrfutilFixtures.folder.appendingPathComponent("packages/signed-app.zip").path
        for arguments in [["keys", "display", key.path, "--key", "pk", "--format", "hex"], ["inspect", package, "--key", key.path]] {
            let command = ([TestData.dfuExecutable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let outcome = try await ExecutableTests.run(arguments, through: ["/usr/bin/script", "-q", "-e", "-c", command, "/dev/null"])
            #expect(!outcome.output.contains("pass phrase"), "\(outcome.output)")
            #expect(outcome.status == 64 || outcome.status == 65, "\(outcome.output)")
        }
    }
}
