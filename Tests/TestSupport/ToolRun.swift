public import Foundation
import Glibc

/// The outcome of running a command-line tool (shared by the test targets that drive
/// bluetoothctl, busctl, gdbus and dfu-sim).
public struct ToolRun: Sendable {
    /// The exit status (-1 if it never ended normally).
    public let status: Int32
    /// Standard output and standard error, interleaved.
    public let output: String

    /// Whether an executable is installed at `path`.
    public static func isInstalled(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    /// Runs `path` with `arguments` without blocking a thread, killing it after `timeout`.
    public static func run(_ path: String, _ arguments: [String], timeout: Duration = .seconds(10)) async throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let status = try await exitStatus(of: process, timeout: timeout)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return ToolRun(status: status, output: String(decoding: data, as: UTF8.self))
    }

    /// Starts a configured `process` and waits for its exit without blocking a thread, killing it
    /// (SIGKILL) after `timeout`; `started` runs once it is running (e.g. to close the parent's copies
    /// of its output files).
    public static func exitStatus(
        of process: Process, timeout: Duration, started: () throws -> Void = {}
    ) async throws -> Int32 {
        let (exited, exit) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { finished in
            exit.yield(finished.terminationStatus)
            exit.finish()
        }
        try process.run()
        try started()
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(process.processIdentifier, SIGKILL)
        }
        var status: Int32 = -1
        for await code in exited { status = code }
        watchdog.cancel()
        return status
    }
}
