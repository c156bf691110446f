import Foundation
import TestSupport

/// The built `dfu` run as a process with a watchdog: a run that hangs is killed (SIGKILL) after
/// `timeout` and shows as status -1, so a test of a hang fails instead of hanging.
struct ProcessRun: Sendable {
    let status: Int32
    let output: String
    let error: String

    static func dfu(_ arguments: [String], timeout: Duration = .seconds(20), environment: [String: String]? = nil,
                    standardOutput: FileHandle? = nil) async throws -> ProcessRun {
        let process = Process()
        process.executableURL = TestData.dfuExecutable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let folder = FileManager.default.temporaryDirectory
        let outFile = folder.appendingPathComponent("dfu-out-\(UUID().uuidString)")
        let errFile = folder.appendingPathComponent("dfu-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
        }
        let out = try FileHandle(forWritingTo: outFile)
        let err = try FileHandle(forWritingTo: errFile)
        process.standardOutput = standardOutput ?? out
        process.standardError = err
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
        if process.endedBySignal { status = -1 }
        watchdog.cancel()
        try out.close()
        try err.close()
        return ProcessRun(status: status,
                          output: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
                          error: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
    }
}
