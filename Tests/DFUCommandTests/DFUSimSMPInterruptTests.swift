import DFUSimulator
import Foundation
import TestSupport
import Testing

/// Ctrl-C during an SMP upload through bluetoothd's stand-in: the built `dfu` under `dfu-sim run` (answers at
/// the modelled pace, `--link smp_paced=yes`, so the upload takes seconds) gets SIGINT mid-upload. SMP has no
/// abort: it stops, disconnects, says the same command resumes from the device's offset, and exits 130; the
/// device keeps running its old image. (The resume itself: SMPUploadCommandTests, in-process.)
@Suite(.enabled(if: DFUSimRun.available), .timeLimit(.minutes(TestTime.limitMinutes(2))))
struct DFUSimSMPInterruptTests {
    static let address = "C0:FF:EE:00:00:10"
    static let bytes = SimulatedMCUbootImageBuilder(version: (3, 0, 0, 0)).image(bodySize: 300_000, seed: 33)
    static let image: String = {
        let url = SMPFirmware.folder.appendingPathComponent("large_update.bin")
        try? Data(bytes).write(to: url)
        return url.path
    }()

    @Test func sigintMidUploadStopsAndSaysTheRerunResumes() async throws {
        let report = SMPFirmware.folder.appendingPathComponent("interrupt-\(UUID().uuidString).json")
        let run = try await SignalledUpload.run(
            simulator: ["--device", "smp", "--link", "smp_paced=yes", "--report", report.path],
            upload: [Self.image, "-d", Self.address], total: Self.bytes.count, threshold: 30_000, signal: SIGINT, limit: 60)
        let error = run.error
        #expect(run.signalled, "the upload never got to 30000 bytes: \(error)")
        #expect(run.status == 130, "\(error)")
        let lines = error.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }
        let last = lines.last ?? ""
        #expect(last.hasPrefix("dfu: \(Self.address): interrupted while uploading at "), "\(last)")
        // One connection: the interrupt ends the run without an attempt to reconnect.
        #expect(lines.filter { $0.hasSuffix(" connecting") }.count == 1, "\(lines.suffix(4))")
        #expect(last.hasSuffix("SMP has no abort: the device keeps what it received and runs its current firmware; "
                               + "the same command again resumes from the device's offset"), "\(last)")
        #expect(SignalledUpload.confirmedBytes(error, of: Self.bytes.count) < Self.bytes.count, "stopped before the end")
        let document = (try? Data(contentsOf: report)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let device = (document?["devices"] as? [[String: Any]])?.first
        let running = (device?["slots"] as? [[String: Any]])?.first { $0["slot"] as? Int == 0 }
        #expect(running?["version"] as? String == "1.0.0", "the old image still runs")
        #expect((device?["stats"] as? [String: Any])?["smp_resets"] as? Int == 0)
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
