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
}
