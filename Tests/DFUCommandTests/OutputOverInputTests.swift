import DFUCommand
import Foundation
import SystemSupport
import Testing

/// Commands that write a file never write over a file they read, and a new key never replaces a
/// key another process wrote meanwhile.
@Suite struct OutputOverInputTests {
    @Test func keysDisplayRefusesAnOutFileThatIsThePrivateKeyAndLeavesTheKeyAsItWas() async throws {
        let folder = try NrfutilFixtures.temporaryFolder()
        let key = folder.appendingPathComponent("private.pem").path
        try FileManager.default.copyItem(atPath: NrfutilFixtures.testPrivateKey, toPath: key)
        let before = try Data(contentsOf: URL(fileURLWithPath: key))
        let run = await RecordedRun.dfu("keys", "display", key, "--key", "pk", "--format", "pem", "--out_file", key)
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1 && run.error.contains("--out_file"), "\(run.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == before)
    }

    @Test func keysDisplayRefusesAnOutFileThatIsThePrivateKeyUnderAnotherName() async throws {
        let folder = try NrfutilFixtures.temporaryFolder()
        let key = folder.appendingPathComponent("private.pem").path
        try FileManager.default.copyItem(atPath: NrfutilFixtures.testPrivateKey, toPath: key)
        let link = folder.appendingPathComponent("same.pem").path
        #expect(Foundation.link(key, link) == 0)
        let run = await RecordedRun.dfu("keys", "display", key, "--key", "sk", "--format", "hex", "--out_file", link)
        #expect(run.code == .usage, "\(run.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == (try Data(contentsOf: URL(fileURLWithPath: NrfutilFixtures.testPrivateKey))))
    }

    @Test func pkgGenerateRefusesAPackagePathThatIsItsKeyFile() async throws {
        let folder = try NrfutilFixtures.temporaryFolder()
        let key = folder.appendingPathComponent("private.pem").path
        try FileManager.default.copyItem(atPath: NrfutilFixtures.testPrivateKey, toPath: key)
        let application = folder.appendingPathComponent("app.bin")
        try Data(repeating: 0xA5, count: 64).write(to: application)
        // The same file under a second name (a hard link), as `./private.pem` or a symlink would be.
        let same = folder.appendingPathComponent("out.zip").path
        #expect(Foundation.link(key, same) == 0)
        let run = await RecordedRun.dfu(
            "pkg", "generate", same, "--application", application.path, "--application-version", "1", "--hw-version", "52",
            "--sd-req", "0x00", "--key-file", key)
        #expect(run.code == .usage, "\(run.error)")
        #expect(run.error.contains("--key-file"), "\(run.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == (try Data(contentsOf: URL(fileURLWithPath: NrfutilFixtures.testPrivateKey))))
    }

    @Test func pkgGenerateRefusesAPackagePathThatIsItsApplication() async throws {
        let folder = try NrfutilFixtures.temporaryFolder()
        let application = folder.appendingPathComponent("app.bin")
        try Data(repeating: 0xA5, count: 64).write(to: application)
        let run = await RecordedRun.dfu(
            "pkg", "generate", application.path, "--application", application.path, "--application-version", "1", "--hw-version", "52", "--sd-req", "0x00")
        #expect(run.code == .usage, "\(run.error)")
        #expect(try Data(contentsOf: application) == Data(repeating: 0xA5, count: 64))
    }

    @Test func aWriteThatMustNotReplaceKeepsTheFileAlreadyThereAndLeavesNoTemporaryFile() throws {
        let folder = try NrfutilFixtures.temporaryFolder()
        let path = folder.appendingPathComponent("key.pem").path
        // Another process's key, written after this one checked that the name was free.
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: FileWriteError(path: path, reason: "exists; it was not replaced")) {
            try FileWriter.writeAtomically(Array("ours".utf8), to: path, mode: 0o600, replacing: false)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["key.pem"])
    }

    @Test func aWriteThatMustNotReplaceCreatesANewFileWithItsMode() throws {
        let folder = try NrfutilFixtures.temporaryFolder()
        let path = folder.appendingPathComponent("key.pem").path
        try FileWriter.writeAtomically(Array("ours".utf8), to: path, mode: 0o600, replacing: false)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "ours")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["key.pem"])
    }
}
