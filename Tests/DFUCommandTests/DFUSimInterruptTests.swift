import Foundation
import Testing
import TestSupport

/// Ctrl-C through bluetoothd's stand-in: the built `dfu` under `dfu-sim run` gets SIGINT or
/// SIGTERM mid-upload (sent to `dfu` itself, as a terminal's Ctrl-C reaches the foreground
/// process); it aborts, disconnects, says where the device is and exits with 130, which
/// `dfu-sim` passes on. (Resuming on the next run: DFUSimOptionTests runs two `dfu upload`s
/// against one stand-in.)
@Suite(.enabled(if: DFUSimRun.available), .timeLimit(.minutes(TestTime.limitMinutes(2))))
struct DFUSimInterruptTests {
    static let address = "C0:FF:EE:00:00:10"

    @Test(arguments: [SIGINT, SIGTERM])
    func signalMidUploadAbortsAndExits130(_ signal: Int32) async throws {
        let run = try await SignalledUpload.run(
            simulator: ["--device", "buttonless,address=\(Self.address),sd_id=0xB7"],
            upload: [UploadCommandTests.package("secure-app-512000.zip"), "-d", Self.address, "-vv"],
            total: 512_000, threshold: 100_000, signal: signal, limit: 40)
        let error = run.error
        #expect(run.signalled, "the upload never got to 100000 bytes: \(error)")
        #expect(run.status == 130, "\(error)")
        let lines = error.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }
        let last = lines.last ?? ""
        #expect(last.hasPrefix("dfu: \(Self.address): interrupted in part 1/1 while uploading at "), "\(last)")
        #expect(last.hasSuffix("the same command again starts this part over"), "\(last)")
        // The interrupt ends the run where it is, without an attempt to reconnect after the Abort.
        let afterAbort = lines.drop { !$0.hasSuffix("→ Secure DFU Control Point: Abort (0c)") }
        #expect(!afterAbort.contains { $0.hasSuffix(" connecting") }, "\(afterAbort)")
        #expect(SignalledUpload.confirmedBytes(error, of: 512_000) < 512_000, "stopped before the end")
        // The simulated SDK 15 bootloader acknowledges Abort before the link drops.
        #expect(lines.contains { $0.hasSuffix("→ Secure DFU Control Point: Abort (0c)") }, "\(lines.suffix(8))")
    }

    /// dfu waits for everything (its tasks, the D-Bus socket, the timers, the signals) on one event loop on the
    /// thread the process started with: mid-upload the process has that thread alone.
    @Test func anUploadRunsOnTheProcesssOneThread() async throws {
        let run = try await SignalledUpload.run(
            simulator: ["--device", "secure,address=\(Self.address),sd_id=0xB7"],
            upload: [UploadCommandTests.package("secure-app-512000.zip"), "-d", Self.address],
            total: 512_000, threshold: 100_000, signal: SIGINT, limit: 40)
        #expect(run.signalled, "the upload never got to 100000 bytes: \(run.error)")
        #expect(run.threads == 1, "threads mid-upload: \(run.threads.map(String.init) ?? "unread")")
        #expect(run.status == 130, "\(run.error)")
    }

    /// A second signal ends dfu at once with 130, without waiting for the orderly stop the first one started: both
    /// arrive while dfu is stopped, so the second is handled before the loop could do anything about the first (no
    /// Abort is sent, no closing line is written).
    @Test func aSecondSignalEndsTheProcessAtOnceWith130() async throws {
        let run = try await SignalledUpload.run(
            simulator: ["--device", "secure,address=\(Self.address),sd_id=0xB7"],
            upload: [UploadCommandTests.package("secure-app-512000.zip"), "-d", Self.address, "-vv"],
            total: 512_000, threshold: 100_000, signal: SIGINT, thenAlso: SIGTERM, limit: 40)
        #expect(run.signalled, "the upload never got to 100000 bytes: \(run.error)")
        #expect(run.status == 130, "\(run.error)")
        let lines = run.error.split(separator: "\n")
        #expect(!lines.contains { $0.hasSuffix("→ Secure DFU Control Point: Abort (0c)") }, "\(lines.suffix(4))")
        #expect(!lines.contains { $0.contains("interrupted in part") }, "\(lines.suffix(4))")
    }

    /// An interrupted Legacy upload ends with the machine's own goodbye: Reset (06), which the bootloader takes to
    /// abandon the transfer (its report counts it), before the link drops; dfu exits 130. (The Legacy machine always
    /// planned this Reset; the interrupt used to cut every call short, so it never left.) A slow link (100 ms
    /// intervals) keeps the 3000-byte upload going long enough to be interrupted in the middle.
    @Test func anInterruptedLegacyUploadSendsTheMachinesReset() async throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-report-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let run = try await SignalledUpload.run(
            simulator: ["--device", "legacy,address=\(Self.address)", "--link", "interval_ms=100", "--report", report.path],
            upload: [UploadCommandTests.package("legacy-app.zip"), "-d", Self.address, "-vv"],
            total: 3000, threshold: 900, signal: SIGINT, limit: 40)
        #expect(run.signalled, "the upload never got to 900 bytes: \(run.error)")
        #expect(run.status == 130, "\(run.error)")
        let lines = run.error.split(separator: "\n")
        #expect(lines.contains { $0.hasSuffix("→ Legacy DFU Control Point: Reset (06)") }, "\(lines.suffix(8))")
        #expect(SignalledUpload.confirmedBytes(run.error, of: 3000) < 3000, "stopped before the end")
        #expect(lines.last?.hasSuffix("the Legacy bootloader was told to abandon the transfer (Reset) and waits in DFU mode; "
                                      + "the same command again sends this part from the start") == true, "\(lines.last ?? "")")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let device = try #require((object["devices"] as? [[String: Any]])?.first)
        #expect((device["stats"] as? [String: Any])?["transfers_abandoned"] as? Int == 1, "\(device)")
    }

    /// The Secure machine writes Abort and reads its answer: the report counts one abandoned transfer, and the line
    /// that says where the device was left follows what the bootloader answered.
    @Test func anInterruptedSecureUploadsAbortIsTheMachinesAndItsAnswerShapesTheLastLine() async throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-report-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let run = try await SignalledUpload.run(
            simulator: ["--device", "secure,address=\(Self.address),sd_id=0xB7", "--report", report.path],
            upload: [UploadCommandTests.package("secure-app-512000.zip"), "-d", Self.address],
            total: 512_000, threshold: 100_000, signal: SIGINT, limit: 40)
        #expect(run.signalled && run.status == 130, "\(run.error)")
        #expect(run.error.contains("the bootloader accepted Abort"), "\(run.error.suffix(400))")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let device = try #require((object["devices"] as? [[String: Any]])?.first)
        #expect((device["stats"] as? [String: Any])?["transfers_abandoned"] as? Int == 1, "\(device)")
    }
}
