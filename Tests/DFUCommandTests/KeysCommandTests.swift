import DFUCommand
import DFUCrypto
import Foundation
import Testing

/// `dfu keys display` and `dfu keys generate` against nrfutil 6.1.7's outputs for the test key.
@Suite struct KeysCommandTests {
    static func expected(_ name: String) throws -> String {
        try String(contentsOf: NrfutilFixtures.folder.appendingPathComponent("keys/\(name).txt"), encoding: .utf8)
    }

    @Test(arguments: [("pk", "hex"), ("pk", "pem"), ("sk", "hex"), ("sk", "pem")])
    func displayPrintsWhatNrfutilPrints(_ key: String, _ format: String) async throws {
        let run = await RecordedRun.dfu("keys", "display", NrfutilFixtures.testPrivateKey, "--key", key, "--format", format)
        #expect(run.code == .success, "\(run.error)")
        #expect(run.output == (try Self.expected("\(key)-\(format)")))
    }

    @Test func codeIsNrfutilsArrayOfXThenYLittleEndian() async throws {
        let run = await RecordedRun.dfu("keys", "display", NrfutilFixtures.testPrivateKey, "--key", "pk", "--format", "code")
        #expect(run.code == .success, "\(run.error)")
        // The first comment carries the maker and the time; the includes and the array are nrfutil's.
        func body(_ text: String) -> [Substring] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.filter { !$0.hasPrefix("/*") }
        }
        #expect(body(run.output) == body(try Self.expected("pk-code")))
        #expect(run.output.contains("__ALIGN(4) const uint8_t pk[64] =\n{\n    0x"))
    }

    @Test func privateKeyAsCodeIsRefused() async {
        let run = await RecordedRun.dfu("keys", "display", NrfutilFixtures.testPrivateKey, "--key", "sk", "--format", "code")
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
    }

    @Test func outFileHoldsTheTextWithoutTheFinalNewline() async throws {
        let out = try NrfutilFixtures.temporaryFolder().appendingPathComponent("pk.txt")
        let run = await RecordedRun.dfu("keys", "display", NrfutilFixtures.testPrivateKey, "--key", "pk", "--format", "hex", "--out_file", out.path)
        #expect(run.code == .success)
        #expect(try String(contentsOf: out, encoding: .utf8) + "\n" == (try Self.expected("pk-hex")))
    }

    @Test func generateWritesAPrivateP256KeyOnlyTheOwnerCanReadInNrfutilsPEMForm() async throws {
        let path = try NrfutilFixtures.temporaryFolder().appendingPathComponent("new.pem").path
        let run = await RecordedRun.dfu("keys", "generate", path)
        #expect(run.code == .success, "\(run.error)")
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        let lines = pem.split(separator: "\n")
        #expect(lines.first == "-----BEGIN EC PRIVATE KEY-----")
        #expect(lines.last == "-----END EC PRIVATE KEY-----")
        #expect(lines.dropFirst().dropLast().dropLast().allSatisfy { $0.count == 76 }, "python-ecdsa's 76-column lines")
        let key = try ECDSAP256.PrivateKey(pem: Array(pem.utf8))
        #expect(key.privatePEM() == Array(pem.utf8), "reads back to the same text")
        let signature = try key.sign(Array("message".utf8))
        #expect(ECDSAP256.verify(signature: signature, of: Array("message".utf8), with: try key.publicKey))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = await RecordedRun.dfu("keys", "generate", path)
        #expect(again.code == .usage, "an existing key is never overwritten")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == pem)
    }

    @Test func nrfutilsOwnKeyReadsBackToTheSamePEM() throws {
        let pem = try Data(contentsOf: URL(fileURLWithPath: NrfutilFixtures.testPrivateKey))
        let key = try ECDSAP256.PrivateKey(pem: [UInt8](pem))
        #expect(key.privatePEM() == [UInt8](pem), "nrfutil keys generate wrote this file")
    }
}

/// The two-word commands in help and dispatch.
@Suite struct TwoWordCommandTests {
    @Test func overviewListsThePackageAndKeyCommands() async {
        let run = await RecordedRun.dfu("--help")
        for name in ["pkg generate", "pkg display", "keys generate", "keys display"] {
            #expect(run.output.contains("\n  \(name) "), "\(name)")
        }
    }

    @Test func helpForATwoWordCommandIsItsPage() async {
        let run = await RecordedRun.dfu("help", "pkg", "generate")
        #expect(run.code == .success)
        #expect(run.output.hasPrefix("Usage: dfu pkg generate OUT.zip"))
        let inline = await RecordedRun.dfu("keys", "display", "--help")
        #expect(inline.output.hasPrefix("Usage: dfu keys display PRIVATE.pem"))
    }

    @Test func keysWithAnUnknownSubcommandNamesTheChoices() async {
        let run = await RecordedRun.dfu("keys", "show")
        #expect(run.code == .usage)
        #expect(run.error.hasPrefix("dfu: unknown command 'keys show'; expected keys generate, keys display"), "\(run.error)")
    }

    @Test(arguments: [["pkg", "--help"], ["pkg", "-h"], ["help", "pkg"], ["keys", "--help"], ["help", "keys"]])
    func aGroupsHelpListsItsCommands(_ arguments: [String]) async {
        let run = await RecordedRun.dfu(arguments: arguments)
        #expect(run.code == .success, "\(run.error)")
        let group = arguments[0] == "help" ? arguments[1] : arguments[0]
        #expect(run.output.hasPrefix("Usage: dfu \(group) COMMAND [OPTIONS]"), "\(run.output)")
        for name in group == "pkg" ? ["pkg generate", "pkg display"] : ["keys generate", "keys display"] {
            #expect(run.output.contains("\n  \(name) "), "\(name)")
        }
    }
}
