import Foundation
import Testing

/// `dfu-sim` refuses what it cannot use with one line naming the thing and the cause, exit 64, and
/// never starts COMMAND.
@Suite(
    .serialized, .enabled(if: DFUSimProcess.isBuilt && dbusDaemonInstalled, "needs the built dfu-sim and dbus-daemon"))
struct DFUSimBadInputTests {
    static let keys = DFUSimProcess.root.appendingPathComponent("Tests/Fixtures/keys")

    struct BadInput: CustomTestStringConvertible, Sendable {
        /// Arguments before `--`, with `JUNK` standing for a file that is not a key.
        let arguments: [String]
        /// What the line must say.
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let inputs = [
        BadInput(arguments: ["--device", "secure,public_key=/nonexistent/key.pem"],
                 message: "public_key=/nonexistent/key.pem: cannot read it (no such file)"),
        BadInput(arguments: ["--device", "secure,public_key=JUNK"], message: "is not an ECDSA P-256 key in PEM"),
        BadInput(arguments: ["--device", "secure,public_key="], message: "public_key needs a FILE"),
        BadInput(arguments: ["--device", "secure,colour=blue"], message: "unknown key 'colour' in --device secure,colour=blue"),
        BadInput(arguments: ["--fault", "meteor-strike=1"], message: "unknown fault 'meteor-strike'"),
        BadInput(arguments: ["--report", "/nonexistent/report.json"],
                 message: "--report /nonexistent/report.json: cannot write it (No such file or directory)"),
        BadInput(arguments: ["--report", "/tmp"], message: "--report /tmp: cannot write it (is a directory)"),
    ]

    @Test(arguments: inputs)
    func badInputIsOneLineAndExit64BeforeTheCommandRuns(_ input: BadInput) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let junk = directory.appendingPathComponent("junk.pem")
        try Data("not a key\n".utf8).write(to: junk)
        let marker = directory.appendingPathComponent("command-ran")
        let arguments = input.arguments.map { $0.replacingOccurrences(of: "JUNK", with: junk.path) }
        let outcome = try await DFUSimProcess.run(["run"] + arguments + ["--", "touch", marker.path])
        #expect(outcome.status == 64)
        let lines = outcome.error.split(separator: "\n")
        #expect(lines.first?.hasPrefix("dfu-sim: ") == true, "\(outcome.error)")
        #expect(lines.first?.contains(input.message) == true, "\(outcome.error)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("Try ") }, "one line, then the hint: \(outcome.error)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "COMMAND must not start")
    }

    @Test func aReadablePublicKeyIsAccepted() async throws {
        let key = Self.keys.appendingPathComponent("test-public.pem").path
        let outcome = try await DFUSimProcess.run(["run", "--device", "secure,public_key=\(key)", "--", "true"])
        #expect(outcome.status == 0, "\(outcome.error)")
    }
}
