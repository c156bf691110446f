import Foundation
import Glibc
import TestSupport

/// The built `dfu-sim` executable, run as a child process with a deadline.
enum DFUSimProcess {
    /// The package root.
    static let root = BuiltExecutable.packageRoot

    /// The built `dfu-sim`.
    static var executable: URL { BuiltExecutable.url("dfu-sim") }

    static var isBuilt: Bool { BuiltExecutable.isBuilt("dfu-sim") }

    struct Outcome: Sendable {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs `dfu-sim arguments`, killing it (SIGKILL) after `timeout`.
    ///
    /// Output goes to files, not pipes: a process that outlives dfu-sim (its dbus-daemon after a
    /// crash) would hold a pipe open and make the reader wait forever.
    static func run(_ arguments: [String], timeout: Duration = .seconds(30)) async throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dfu-sim-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        let status = try await ToolRun.exitStatus(of: process, timeout: timeout) {
            try out.close()
            try err.close()
        }
        return Outcome(
            status: status, output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            error: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// Starts `dfu-sim serve` with `arguments` and reads the bus address it prints first. The caller
    /// ends the process (SIGINT, SIGHUP, SIGKILL as its test needs).
    static func serve(_ arguments: [String]) async throws -> (process: Process, address: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            // Read on a thread of its own: the read waits until dfu-sim prints its address (or exits).
            let reading = out.fileHandleForReading
            let address = try await offThePool {
                var bytes: [UInt8] = []
                while let byte = try reading.read(upToCount: 1)?.first, byte != 0x0A { bytes.append(byte) }
                return String(decoding: bytes, as: UTF8.self)
            }
            return (process, address)
        } catch {
            kill(process.processIdentifier, SIGKILL)
            throw error
        }
    }

    /// Whether a process with this id still exists (and is not a zombie of ours).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !status.contains(") Z ")
    }
}
