import Foundation
import Synchronization
import Testing
import TestSupport

/// The rig script of docs/cli.md (docs/examples/rig.sh), end to end through bluetoothd's stand-in:
/// twelve devices from a file, JSON Lines, one device that refuses the package, and Ctrl-C.
@Suite(.enabled(if: DFUSimRun.available), .timeLimit(.minutes(TestTime.limitMinutes(3))))
struct RigScriptTests {
    static let script = TestData.root.appendingPathComponent("docs/examples/rig.sh")
    static let package = TestData.root.appendingPathComponent("firmware-samples/secure-app.zip").path
    /// dfu-sim's default addresses, in --device order.
    static let addresses = (1...12).map { String(format: "C0:FF:EE:00:00:%02X", $0 * 0x10) }
    /// The seventh device has SoftDevice 0x100 installed; the package requires 0xB7.
    static let refusing = addresses[6]
    static let devices = addresses.map { $0 == refusing ? "buttonless,sd_id=0x100" : "buttonless,sd_id=0xB7" }

    struct Outcome: @unchecked Sendable {  // immutable; `log` holds parsed JSON objects
        let status: Int32
        let output: String
        let log: [[String: Any]]
        let signalled: Bool
    }

    /// Runs `dfu-sim run --device … -- sh rig.sh PACKAGE rig.txt LOG`, with the built dfu first on
    /// PATH; with `interrupt`, sends SIGINT to the script and to dfu (as Ctrl-C reaches the whole
    /// foreground job) once the log shows the first progress.
    static func run(interrupt: Bool) async throws -> Outcome {
        try await offThePool { try runBlocking(interrupt: interrupt) }
    }

    /// ``run(interrupt:)``'s work, which waits for the child on the calling thread.
    private static func runBlocking(interrupt: Bool) throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-rig-script-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("rig.txt"), log = folder.appendingPathComponent("log.jsonl")
        let outFile = folder.appendingPathComponent("out.txt")
        try (["# the rig, one device per line"] + addresses.enumerated().map { "\($1)  # slot \($0 + 1)" })
            .joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        let process = Process()
        process.executableURL = DFUSimRun.executable
        // Interrupted: every connection takes half a second, so the rig is still busy when Ctrl-C comes.
        let specs = interrupt ? devices.map { $0 + ",connect_delay_ms=500" } : devices
        process.arguments = ["run"] + specs.flatMap { ["--device", $0] }
            + ["--", "/bin/sh", script.path, package, list.path, log.path]
        var environment = ProcessInfo.processInfo.environment
        environment["DFU_SIMULATE"] = nil
        environment["PATH"] = TestData.dfuExecutable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let out = try FileHandle(forWritingTo: outFile)
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var signalled = false
        let deadline = Date().addingTimeInterval(150)
        while process.isRunning && Date() < deadline {
            if interrupt, !signalled, ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("\"event\":\"progress\"") {
                // The rig script's shell, not the keeper shell of dfu-sim's dbus-daemon.
                let shell = descendants(of: process.processIdentifier).first { commandLine($0).hasPrefix("/bin/sh\0" + script.path) }
                let dfu = descendants(of: process.processIdentifier).first { commandLine($0).hasPrefix("dfu\0") }
                if let shell, let dfu {
                    kill(shell, SIGINT)
                    kill(dfu, SIGINT)
                    signalled = true
                }
            }
            usleep(20_000)
        }
        if process.isRunning {
            for pid in descendants(of: process.processIdentifier) { kill(pid, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try out.close()
        let events = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return Outcome(status: process.statusIfEnded ?? -1, output: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
                       log: events, signalled: signalled)
    }

    /// Every process below `pid` (Linux /proc), children first.
    static func descendants(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var found: [Int32] = []
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            for child in text.split(separator: " ").compactMap({ Int32($0) }) { found += [child] + descendants(of: child) }
        }
        return found
    }

    static func commandLine(_ pid: Int32) -> String {
        String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data(), as: UTF8.self)
    }

    @Test func twelveDevicesOneRefusesTheScriptNamesItAndExitsWithItsCode() async throws {
        let outcome = try await Self.run(interrupt: false)
        #expect(outcome.status == 1, "the refusing device's code: \(outcome.output)")
        let done = outcome.log.filter { $0["event"] as? String == "done" }
        // A device that failed for another reason than the refusal says why in its done event.
        let otherFailures = done.filter { $0["result"] as? String != "updated" && $0["device"] as? String != Self.refusing }
        #expect(outcome.output == "updated: 11\nnot updated: \(Self.refusing)\n", "\(outcome.output) \(otherFailures)")
        #expect(done.count == 12)
        #expect(Set(done.compactMap { $0["device"] as? String }) == Set(Self.addresses))
        let refused = try #require(done.first { $0["device"] as? String == Self.refusing })
        #expect(refused["result"] as? String == "failed" && refused["exit_code"] as? Int == 1, "\(refused)")
        let summary = try #require(outcome.log.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["failed"] as? [String] == [Self.refusing] && summary["updated"] as? Int == 11)
    }

    @Test func ctrlCStopsTheRigAndEveryDeviceIsAccountedFor() async throws {
        let outcome = try await Self.run(interrupt: true)
        #expect(outcome.signalled, "the rig never showed progress: \(outcome.output)")
        #expect(outcome.status == 130, "\(outcome.output)")
        #expect(outcome.output.hasPrefix("interrupted: run the same command again for the devices not updated\nupdated: "),
                "\(outcome.output)")
        #expect(outcome.output.contains("not updated: "))
        let done = outcome.log.filter { $0["event"] as? String == "done" }
        #expect(done.count == 12, "every device has its result")
        #expect(done.contains { $0["result"] as? String == "interrupted" })
        let summary = try #require(outcome.log.last)
        #expect(summary["event"] as? String == "summary" && summary["exit_code"] as? Int == 130)
    }
}

extension RigScriptTests {
    @Test func theDocumentationShowsTheScriptAsItIs() throws {
        let script = try String(contentsOf: Self.script, encoding: .utf8)
        let page = try String(contentsOf: TestData.root.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        #expect(page.contains("```sh\n" + script + "```"))
    }
}
