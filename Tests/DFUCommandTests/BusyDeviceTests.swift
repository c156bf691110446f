import DFUCommand
import Foundation
import Synchronization
import TestSupport
import Testing

/// Never two writers: a device another dfu process is updating gets a clear "busy" (75).
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(2))))
struct BusyDeviceTests {
    static let device = "C0:FF:EE:00:00:42"

    @Test func aSecondUploadToTheSameDeviceIsBusyAndSendsNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-locks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["DFU_LOCK_DIR": folder.path]
        let package = UploadCommandTests.package("secure-app-1024.zip")
        let first = InterruptController()
        // The first update holds the device while it looks for it (40 s unless interrupted).
        let firstEnded = Mutex(false)
        let running = Task {
            let run = await RecordedRun.dfu(arguments: ["upload", package, "-d", Self.device, "--scan-timeout", "40"],
                                            environment: environment, transports: SearchingTransport.provider(), interrupts: first,
                                            locksDevices: true)
            firstEnded.withLock { $0 = true }
            return run
        }
        // The second starts once the first holds the device (it writes its pid into the lock file after
        // taking the lock), however slow the machine.
        func lockHeld() -> Bool {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return files.contains { file in
                let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(file).path)
                return ((attributes?[.size] as? NSNumber)?.intValue ?? 0) > 0
            }
        }
        // No deadline of its own (a loaded machine took over 20 s once, under AddressSanitizer): the suite's
        // time limit bounds it, and a first run that ends without the lock fails the test here.
        while !lockHeld(), !firstEnded.withLock({ $0 }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        if !lockHeld() {
            let error = await running.value.error
            Issue.record("the first upload ended without taking the lock: \(error)")
            return
        }
        let second = await RecordedRun.dfu(arguments: ["upload", package, "-d", Self.device, "--no-acquire"],
                                           environment: environment, transports: SearchingTransport.provider(),
                                           locksDevices: true)
        first.interrupt()
        _ = await running.value
        #expect(second.code == .busy, "\(second.error)")
        #expect(second.errorLines.last == "dfu: \(Self.device): busy: another dfu process (pid \(getpid())) is updating this device; nothing was sent, try again when it has finished")
        // Once the first has ended the device is free again.
        let third = await RecordedRun.dfu(arguments: ["upload", package, "-d", Self.device, "--scan-timeout", "0.2"],
                                          environment: environment, transports: SearchingTransport.provider(),
                                          locksDevices: true)
        #expect(third.code == .deviceNotFound, "not busy any more: \(third.error)")
    }

    @Test(.enabled(if: DFUSimRun.available))
    func twoDfuProcessesThroughBluetoothdsStandInNeverBothWrite() async throws {
        let dfu = TestData.dfuExecutable.path
        let package = UploadCommandTests.package("secure-app-512000.zip")
        let upload = "'\(dfu)' upload '\(package)' -d C0:FF:EE:00:00:10"
        // The first runs in the background and holds the device while its connection takes 5 s (a
        // slow or distant device); the second starts a second later.
        let script = "\(upload) -q & sleep 1; \(upload) --no-acquire -q; echo second=$?; wait $!; echo first=$?"
        let run = try await DFUSimRun.run(devices: ["buttonless,sd_id=0xB7,connect_delay_ms=5000"], command: ["/bin/sh", "-c", script])
        #expect(run.output.contains("second=75"), "\(run.output) \(run.error)")
        #expect(run.output.contains("first=0"), "the first is not disturbed: \(run.output) \(run.error)")
        #expect(run.error.contains("busy: another dfu process (pid "), "\(run.error)")
        #expect(!run.error.contains("unexpected notification"))
    }
}
