import DFUSimulator
import Foundation
import TestSupport
import Testing

/// Ctrl-C during an SMP upload through bluetoothd's stand-in: the built `dfu` under `dfu-sim run` (answers at
/// the modelled pace, `--link smp_paced=yes`, so the upload takes seconds) gets SIGINT mid-upload. SMP has no
/// abort: it stops, disconnects, says the same command resumes from the device's offset, and exits 130; the
/// device keeps running its old image. (The resume itself: SMPUploadCommandTests, in-process.)
@Suite(.enabled(if: DFUSimRun.available), .timeLimit(.minutes(2)))
struct DFUSimSMPInterruptTests {
    static let address = "C0:FF:EE:00:00:10"
    static let bytes = SimulatedMCUbootImageBuilder(version: (3, 0, 0, 0)).image(bodySize: 300_000, seed: 33)
    static let image: String = {
        let url = SMPFirmware.folder.appendingPathComponent("large_update.bin")
        try? Data(bytes).write(to: url)
        return url.path
    }()

    /// Largest "N/TOTAL" byte count on the plain progress lines so far.
    static func confirmedBytes(_ text: String) -> Int {
        let total = "/\(bytes.count)"
        return text.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasSuffix(total) }.flatMap { Int($0.dropLast(total.count)) }
        }.max() ?? 0
    }

    @Test func sigintMidUploadStopsAndSaysTheRerunResumes() async throws {
        // The watch below waits on a thread of its own, never one of the shared pool's.
        let (status, error, report) = try await offThePool { try Self.interruptMidUpload() }
        #expect(status.signalled, "the upload never got to 30000 bytes: \(error)")
        #expect(status.code == 130, "\(error)")
        let lines = error.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }
        let last = lines.last ?? ""
        #expect(last.hasPrefix("dfu: \(Self.address): interrupted while uploading at "), "\(last)")
        // One connection: the interrupt ends the run without an attempt to reconnect.
        #expect(lines.filter { $0.hasSuffix(" connecting") }.count == 1, "\(lines.suffix(4))")
        #expect(last.hasSuffix("SMP has no abort: the device keeps what it received and runs its current firmware; "
                               + "the same command again resumes from the device's offset"), "\(last)")
        #expect(Self.confirmedBytes(error) < Self.bytes.count, "stopped before the end")
        let document = (try? Data(contentsOf: report)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let device = (document?["devices"] as? [[String: Any]])?.first
        let running = (device?["slots"] as? [[String: Any]])?.first { $0["slot"] as? Int == 0 }
        #expect(running?["version"] as? String == "1.0.0", "the old image still runs")
        #expect((device?["stats"] as? [String: Any])?["smp_resets"] as? Int == 0)
    }

    /// Runs `dfu upload` under `dfu-sim run`, sends dfu SIGINT once 30 000 bytes are confirmed, and
    /// returns whether it did, the exit status, dfu's standard error and the report's path.
    static func interruptMidUpload() throws -> (status: (signalled: Bool, code: Int32), error: String, report: URL) {
        let process = Process()
        process.executableURL = DFUSimRun.executable
        let report = SMPFirmware.folder.appendingPathComponent("interrupt-\(UUID().uuidString).json")
        process.arguments = ["run", "--device", "smp", "--link", "smp_paced=yes", "--report", report.path, "--",
                             TestData.dfuExecutable.path, "upload", Self.image, "-d", Self.address]
        var environment = ProcessInfo.processInfo.environment
        environment["DFU_SIMULATE"] = nil
        process.environment = environment
        let errorFile = SMPFirmware.folder.appendingPathComponent("interrupt-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: errorFile)
        process.standardError = handle
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var signalled = false
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline {
            let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            if !signalled, confirmedBytes(text) >= 30_000, let dfu = DFUSimInterruptTests.child(of: process.processIdentifier) {
                kill(dfu, SIGINT)
                signalled = true
            }
            usleep(20_000)
        }
        if process.isRunning {
            if let dfu = DFUSimInterruptTests.child(of: process.processIdentifier) { kill(dfu, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try handle.close()
        let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return ((signalled, process.terminationStatus), error, report)
    }

    @Test func theSameCommandAfterAnInterruptResumesFromTheDevicesOffset() async throws {
        // One stand-in, two runs: the first is sent SIGINT after 3 s of a 6 s upload, the second carries on.
        let dfu = TestData.dfuExecutable.path
        let script = """
            timeout --preserve-status -s INT 3 "$0" upload "$1" -d \(Self.address); echo "first exit $?" >&2
            "$0" upload "$1" -d \(Self.address) -v
            """
        let run = try await DFUSimRun.run(devices: ["smp"], simulator: ["--link", "smp_paced=yes"],
                                    command: ["/bin/sh", "-c", script, dfu, Self.image])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("first exit 130"), "\(run.error)")
        let resumed = run.error.split(separator: "\n").first { $0.contains("resuming part 1 at byte ") }
        let offset = resumed.flatMap { line in line.split(separator: " ").last.flatMap { Int($0) } } ?? 0
        #expect(offset > 0 && offset < Self.bytes.count, "\(run.error)")
        let running = (run.device(Self.address)?["slots"] as? [[String: Any]])?.first { $0["slot"] as? Int == 0 }
        #expect(running?["version"] as? String == "3.0.0")
        #expect(running?["confirmed"] as? Bool == true)
    }
}
