import Foundation
import Synchronization
import Testing
import TestSupport

/// Ctrl-C through bluetoothd's stand-in: the built `dfu` under `dfu-sim run` gets SIGINT or
/// SIGTERM mid-upload (sent to `dfu` itself, as a terminal's Ctrl-C reaches the foreground
/// process); it aborts, disconnects, says where the device is and exits with 130, which
/// `dfu-sim` passes on. (Resuming on the next run: DFUSimOptionTests runs two `dfu upload`s
/// against one stand-in.)
@Suite(.enabled(if: DFUSimRun.available), .timeLimit(.minutes(2)))
struct DFUSimInterruptTests {
    static let address = "C0:FF:EE:00:00:10"

    /// Largest "N/512000" byte count on the plain progress lines so far.
    static func confirmedBytes(_ text: String) -> Int {
        text.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasSuffix("/512000") }.flatMap { Int($0.dropLast(7)) }
        }.max() ?? 0
    }

    /// The `dfu` child of `pid` (not its dbus-daemon), whichever thread started it (Linux /proc).
    static func child(of pid: Int32) -> Int32? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            for child in text.split(separator: " ").compactMap({ Int32($0) }) {
                let commandLine = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/cmdline"))) ?? Data()
                if String(decoding: commandLine, as: UTF8.self).hasPrefix(TestData.dfuExecutable.path) { return child }
            }
        }
        return nil
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalMidUploadAbortsAndExits130(_ signal: Int32) async throws {
        let (signalled, status, error) = try await offThePool { try Self.uploadSignalledMidway(with: signal) }
        #expect(signalled, "the upload never got to 100000 bytes: \(error)")
        #expect(status == 130, "\(error)")
        let lines = error.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }
        let last = lines.last ?? ""
        #expect(last.hasPrefix("dfu: \(Self.address): interrupted in part 1/1 while uploading at "), "\(last)")
        #expect(last.hasSuffix("the same command again starts this part over"), "\(last)")
        // The interrupt ends the run where it is, without an attempt to reconnect after the Abort.
        let afterAbort = lines.drop { !$0.hasSuffix("→ Secure DFU Control Point: Abort (0c)") }
        #expect(!afterAbort.contains { $0.hasSuffix(" connecting") }, "\(afterAbort)")
        #expect(Self.confirmedBytes(error) < 512_000, "stopped before the end")
        // The simulated SDK 15 bootloader acknowledges Abort before the link drops.
        #expect(lines.contains { $0.hasSuffix("→ Secure DFU Control Point: Abort (0c)") }, "\(lines.suffix(8))")
    }

    /// Runs a 512 KB upload under dfu-sim and sends `signal` to dfu once 100 000 bytes are confirmed,
    /// waiting for the child on the calling thread: whether it was sent, the exit status, dfu's stderr.
    static func uploadSignalledMidway(with signal: Int32) throws -> (Bool, Int32, String) {
        let process = Process()
        process.executableURL = DFUSimRun.executable
        process.arguments = ["run", "--device", "buttonless,address=\(Self.address),sd_id=0xB7", "--",
                             TestData.dfuExecutable.path, "upload", UploadCommandTests.package("secure-app-512000.zip"),
                             "-d", Self.address, "-vv"]
        var environment = ProcessInfo.processInfo.environment
        environment["DFU_SIMULATE"] = nil
        process.environment = environment
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-err-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let handle = try FileHandle(forWritingTo: errorFile)
        process.standardError = handle
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var signalled = false
        let deadline = Date().addingTimeInterval(40)
        while process.isRunning && Date() < deadline {
            let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            if !signalled, Self.confirmedBytes(text) >= 100_000, let dfu = Self.child(of: process.processIdentifier) {
                kill(dfu, signal)
                signalled = true
            }
            usleep(20_000)
        }
        if process.isRunning {
            if let dfu = Self.child(of: process.processIdentifier) { kill(dfu, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try handle.close()
        let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return (signalled, process.terminationStatus, error)
    }
}
