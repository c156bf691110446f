import Foundation
import Synchronization
import Testing

/// The built `dfu`, in simulated-device mode (`DFU_SIMULATE=1`), run in a real pseudo-terminal
/// under script(1), and interrupted with real signals.
@Suite struct PseudoTerminalTests {
    static let script = "/usr/bin/script"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: script) && FileManager.default.isExecutableFile(atPath: TestData.dfuExecutable.path)
    }
    static let package = UploadCommandTests.package("secure-sd-bl-app.zip")

    /// Runs `dfu ARGUMENTS` in a pseudo-terminal and returns what the terminal received and the status.
    static func inTerminal(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, screen: String) {
        let command = ([TestData.dfuExecutable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        var merged = ProcessInfo.processInfo.environment
        merged["NO_COLOR"] = nil
        merged.merge(environment) { _, new in new }
        merged["DFU_SIMULATE"] = "1"
        merged["DFU_SIMULATE_SPEED"] = "0"
        process.environment = merged
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: available))
    func liveLineIsRedrawnInPlaceWithColour() throws {
        let (status, screen) = try Self.inTerminal(["upload", Self.package, "-d", "C0:FF:EE:00:00:01"],
                                                   environment: ["TERM": "xterm", "COLUMNS": "120"])
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("\u{1B}[1A\r\u{1B}[2K"))
        #expect(screen.contains("\u{1B}[36muploading\u{1B}[0m"))
        #expect(screen.contains("\u{1B}[32mdone\u{1B}[0m"))
        let plain = UploadOutputTests.stripped(screen)
        #expect(plain.contains("part 2/2 ["))
        #expect(plain.contains("C0:FF:EE:00:00:01: updated in "))
    }

    @Test(.enabled(if: available))
    func noColorInATerminalDrawsWithoutColour() throws {
        let (status, screen) = try Self.inTerminal(["upload", Self.package, "-d", "C0:FF:EE:00:00:01"],
                                                   environment: ["TERM": "xterm", "NO_COLOR": "1"])
        #expect(status == 0)
        #expect(screen.contains("\u{1B}[2K"))
        #expect(!screen.contains("\u{1B}[3"))
    }

    @Test(.enabled(if: available))
    func dumbTerminalGetsPlainLines() throws {
        let (status, screen) = try Self.inTerminal(["upload", Self.package, "-d", "C0:FF:EE:00:00:01"],
                                                   environment: ["TERM": "dumb"])
        #expect(status == 0)
        #expect(!screen.contains("\u{1B}"))
        #expect(screen.contains("C0:FF:EE:00:00:01: part 2/2 uploading"))
    }

    /// Starts a slow simulated upload, waits until it is uploading, sends `signal`.
    static func interrupted(by signal: Int32) throws -> (status: Int32, error: String) {
        let process = Process()
        process.executableURL = TestData.dfuExecutable
        process.arguments = ["upload", UploadCommandTests.package("secure-app-512000.zip"), "-d", "C0:FF:EE:00:00:01"]
        var environment = ProcessInfo.processInfo.environment
        environment["DFU_SIMULATE"] = "1"
        environment["DFU_SIMULATE_SPEED"] = "4"
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        let collected = Mutex("")
        let uploading = DispatchSemaphore(value: 0)
        err.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            let seen = collected.withLock { all in
                let before = all.contains("% ")
                all += text
                return !before && all.contains("% ")
            }
            if seen { uploading.signal() }
        }
        try process.run()
        let started = uploading.wait(timeout: .now() + 30) == .success
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        err.fileHandleForReading.readabilityHandler = nil
        let rest = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = collected.withLock { $0 } + rest
        return (started ? process.terminationStatus : -1, error)
    }

    @Test(.enabled(if: available), arguments: [SIGINT, SIGTERM])
    func signalAbortsAndExits130(_ signal: Int32) throws {
        let (status, error) = try Self.interrupted(by: signal)
        #expect(status == 130, "\(error)")
        let last = error.split(separator: "\n").last ?? ""
        #expect(last.hasPrefix("dfu: C0:FF:EE:00:00:01: interrupted in part 1/1 while uploading at "), "\(last)")
        #expect(last.hasSuffix("; the bootloader accepted Abort: the device resets and keeps its previous firmware if it is still valid, "
                               + "otherwise it waits in its bootloader; the same command again starts this part over"), "\(last)")
    }
}
