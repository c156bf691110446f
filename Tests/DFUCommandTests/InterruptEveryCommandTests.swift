import DFUCommand
import DFUCore
import Foundation
import TestSupport
import Testing

/// Ctrl-C or SIGTERM stops every command promptly, not only `upload`: exit 130 and one line
/// saying what state things were left in; `scan` lists what it heard so far.
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(1))))
struct InterruptEveryCommandTests {
    static let heard = Advertisement(address: DFUDeviceAddress("C0:FF:EE:00:00:42").unsafelyUnwrapped, name: "Sensor",
                                     rssi: -50, serviceUUIDs: [DFUServiceUUIDs().secureService])

    /// Runs `dfu ARGUMENTS` over `provider` and interrupts it after `after`; returns the run and how
    /// long it went on after the interrupt (a loaded machine may delay the interrupt itself).
    static func interrupted(_ arguments: [String], provider: TransportProvider,
                            after: Duration = .milliseconds(300)) async -> (RecordedRun, Duration) {
        let interrupts = InterruptController()
        let clock = ContinuousClock()
        let signal = Task { () -> ContinuousClock.Instant in
            try? await Task.sleep(for: after)
            interrupts.interrupt()
            return clock.now
        }
        let run = await RecordedRun.dfu(arguments: arguments, transports: provider, interrupts: interrupts)
        let end = clock.now
        return (run, await signal.value.duration(to: end))
    }

    @Test func scanStopsAtOnceAndListsWhatItHeardSoFar() async {
        let (run, took) = await Self.interrupted(["scan", "--timeout", "40"],
                                                 provider: SearchingTransport.provider(heard: [Self.heard]))
        #expect(run.code == .interrupted, "\(run.error)")
        #expect(took < .seconds(15), "the scan ran on for \(took) of its 40 s")
        #expect(run.output.contains("C0:FF:EE:00:00:42"), "the device heard before Ctrl-C is listed: \(run.output)")
        #expect(run.errorLines.last?.hasPrefix("dfu: scan interrupted; 1 device heard so far") == true, "\(run.error)")
    }

    @Test func scanJSONStillPrintsTheDevicesHeard() async throws {
        let (run, _) = await Self.interrupted(["scan", "--timeout", "20", "--json"],
                                              provider: SearchingTransport.provider(heard: [Self.heard]))
        #expect(run.code == .interrupted)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect((object["devices"] as? [[String: Any]])?.count == 1)
    }

    @Test func triggerStopsWhileLookingForTheDeviceAndSaysItWasNotSwitched() async {
        let (run, took) = await Self.interrupted(["trigger", "-d", "C0:FF:EE:00:00:42", "--scan-timeout", "40"],
                                                 provider: SearchingTransport.provider())
        #expect(run.code == .interrupted, "\(run.error)")
        #expect(took < .seconds(15), "trigger ran on for \(took) of its 40 s scan")
        #expect(run.error == "dfu: trigger interrupted; C0:FF:EE:00:00:42: it was not switched\n")
        #expect(run.output.isEmpty)
    }

    @Test func uploadStillStopsWhileLookingForTheDevice() async {
        let package = UploadCommandTests.package("secure-app-1024.zip")
        let (run, took) = await Self.interrupted(["upload", package, "-d", "C0:FF:EE:00:00:42", "--scan-timeout", "40"],
                                                 provider: SearchingTransport.provider())
        #expect(run.code == .interrupted, "\(run.error)")
        #expect(took < .seconds(20), "upload ran on for \(took) of its 40 s scan")
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("package.zip").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Through the built executable: on a blocking open the watchdog kills it, and the test fails.
        let run = try await ProcessRun.dfu(["inspect", fifo], timeout: .seconds(10))
        #expect(run.status == ExitCode.noInput.rawValue, "\(run.error)")
        #expect(run.error == "dfu: \(fifo): cannot read: is not a regular file\n")
    }
}

/// Output that cannot be written is an error, not a silent success.
@Suite struct OutputFailureTests {
    @Test func inspectJSONToAFullDiskExits74AndSaysWhy() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }
        let run = try await ProcessRun.dfu(["inspect", UploadCommandTests.package("secure-app-1024.zip"), "--json"],
                                           standardOutput: full)
        #expect(run.status == 74, "\(run.error)")
        #expect(run.error == "dfu: cannot write to standard output: No space left on device\n")
    }
}
