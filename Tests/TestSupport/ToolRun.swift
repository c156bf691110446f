import Foundation
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
        let (exited, exit) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { finished in
            exit.yield(finished.terminationStatus)
            exit.finish()
        }
        try process.run()
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(process.processIdentifier, SIGKILL)
        }
        var status: Int32 = -1
        for await code in exited { status = code }
        watchdog.cancel()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return ToolRun(status: status, output: String(decoding: data, as: UTF8.self))
    }
}
