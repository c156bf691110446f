import Foundation
import TestSupport

/// A `dfu upload` under `dfu-sim run` that is sent a signal part-way, as a terminal's Ctrl-C reaches
/// the foreground process: the signal goes to `dfu` itself, not to dfu-sim.
struct SignalledUpload: Sendable {
    /// Whether the signal was sent (the upload got far enough before it ended).
    let signalled: Bool
    /// dfu-sim's exit status, which is dfu's.
    let status: Int32
    /// dfu's standard error.
    let error: String
    /// How many threads dfu's process had when it was signalled (the Threads line of /proc/PID/status).
    let threads: Int?

    /// The largest "N/TOTAL" byte count on the plain progress lines of `text`.
    static func confirmedBytes(_ text: String, of total: Int) -> Int {
        let suffix = "/\(total)"
        return text.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasSuffix(suffix) }.flatMap { Int($0.dropLast(suffix.count)) }
        }.max() ?? 0
    }

    /// Runs `dfu-sim run SIMULATOR -- dfu upload UPLOAD` and sends dfu `signal` once its progress shows
    /// `threshold` of `total` bytes confirmed; kills both after `limit`. Waits on a thread of its own.
    ///
    /// With `thenAlso`, dfu gets two signals that arrive together: it is stopped (SIGSTOP), sent `signal` and then
    /// `thenAlso` (signals of two kinds, which the kernel keeps apart), and continued, so both are delivered before
    /// dfu runs another instruction of its own.
    static func run(simulator: [String], upload: [String], total: Int, threshold: Int, signal: Int32,
                    thenAlso second: Int32? = nil, limit: TimeInterval) async throws -> SignalledUpload {
        try await offThePool {
            try runBlocking(simulator: simulator, upload: upload, total: total, threshold: threshold, signal: signal,
                            second: second, limit: limit)
        }
    }

    private static func runBlocking(simulator: [String], upload: [String], total: Int, threshold: Int, signal: Int32,
                                    second: Int32?, limit: TimeInterval) throws -> SignalledUpload {
        let process = Process()
        process.executableURL = DFUSimRun.executable
        process.arguments = ["run"] + simulator + ["--", TestData.dfuExecutable.path, "upload"] + upload
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
        var threads: Int?
        let deadline = Date().addingTimeInterval(limit)
        // The progress lines are in a file that dfu appends to: read again every 20 ms.
        while process.isRunning && Date() < deadline {
            let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            if !signalled, confirmedBytes(text, of: total) >= threshold, let dfu = child(of: process.processIdentifier) {
                threads = threadCount(of: dfu)
                if let second {
                    kill(dfu, SIGSTOP)
                    kill(dfu, signal)
                    kill(dfu, second)
                    kill(dfu, SIGCONT)
                } else {
                    kill(dfu, signal)
                }
                signalled = true
            }
            usleep(20_000)
        }
        if process.isRunning {
            if let dfu = child(of: process.processIdentifier) { kill(dfu, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try handle.close()
        let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return SignalledUpload(signalled: signalled, status: process.statusIfEnded ?? -1, error: error, threads: threads)
    }

    /// The number on the Threads line of /proc/PID/status.
    static func threadCount(of pid: Int32) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
            .flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) }
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
}
