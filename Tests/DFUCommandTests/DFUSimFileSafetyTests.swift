import Foundation
import Glibc
import TestSupport
import Testing

/// `dfu-sim`'s outputs (`--report`, `image --bin/--dat`) and inputs (`public_key=`) are handled as
/// `dfu` handles its own: a planted link is replaced, never followed; a FIFO is refused, never
/// waited on; a report is written whole or not at all.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimFileSafetyTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Someone else's file, reached through a link named like the report.
    @Test func aReportPathThatIsALinkReplacesTheLinkAndLeavesItsTargetAlone() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let victim = folder.appendingPathComponent("victim")
        try Data("precious\n".utf8).write(to: victim)
        #expect(chmod(victim.path, 0o600) == 0)
        let report = folder.appendingPathComponent("report.json")
        try FileManager.default.createSymbolicLink(atPath: report.path, withDestinationPath: victim.path)
        let run = try await ToolRun.run(
            DFUSimRun.executable.path, ["run", "--device", "secure", "--report", report.path, "--", "/bin/true"],
            timeout: TestTime.scaled(.seconds(20)))
        #expect(run.status == 0, "\(run.output)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.attributesOfItem(atPath: victim.path)[.posixPermissions] as? Int == 0o600)
        let attributes = try FileManager.default.attributesOfItem(atPath: report.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular, "the link was replaced by the report")
        #expect(try String(contentsOf: report, encoding: .utf8).contains("\"devices\""))
    }

    /// A FIFO with no reader blocked the open for ever, and the SIGTERM handler let it restart:
    /// dfu-sim hung until ToolRun killed it (status -1, no message). Refusing it says why and exits.
    @Test func aReportPathThatIsAFIFOIsRefusedAtOnce() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("report.json")
        #expect(mkfifo(report.path, 0o600) == 0)
        let run = try await ToolRun.run(
            DFUSimRun.executable.path, ["run", "--device", "secure", "--report", report.path, "--", "/bin/true"],
            timeout: TestTime.scaled(.seconds(60)))
        #expect(run.status == 64, "\(run.output)")
        #expect(run.output.contains("--report \(report.path): cannot write it (is not a regular file)"), "\(run.output)")
    }

    @Test func aPublicKeyThatIsAFIFOIsRefusedAtOnce() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.pem")
        #expect(mkfifo(key.path, 0o600) == 0)
        let run = try await ToolRun.run(
            DFUSimRun.executable.path, ["run", "--device", "secure,public_key=\(key.path)", "--", "/bin/true"],
            timeout: TestTime.scaled(.seconds(60)))
        #expect(run.status == 64, "\(run.output)")
        #expect(run.output.contains("public_key=\(key.path): cannot read it (is not a regular file)"), "\(run.output)")
    }

    @Test func anImageOutputThatIsALinkReplacesTheLinkAndLeavesItsTargetAlone() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let victim = folder.appendingPathComponent("victim")
        try Data("precious\n".utf8).write(to: victim)
        let bin = folder.appendingPathComponent("app.bin"), dat = folder.appendingPathComponent("app.dat")
        try FileManager.default.createSymbolicLink(atPath: bin.path, withDestinationPath: victim.path)
        let run = try await ToolRun.run(
            DFUSimRun.executable.path, ["image", "--size", "1024", "--bin", bin.path, "--dat", dat.path], timeout: TestTime.scaled(.seconds(20)))
        #expect(run.status == 0, "\(run.output)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.attributesOfItem(atPath: bin.path)[.type] as? FileAttributeType == .typeRegular)
    }
}
