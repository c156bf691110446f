import Foundation
import Glibc

/// The outcome of running a command-line tool.
struct ToolRun: Sendable {
    let status: Int32
    let output: String

    /// Whether an executable is installed at `path`.
    static func isInstalled(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    /// Runs `path` with `arguments` without blocking a thread, killing it after `timeout`.
    static func run(_ path: String, _ arguments: [String], timeout: Duration = .seconds(10)) async throws -> ToolRun {
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
