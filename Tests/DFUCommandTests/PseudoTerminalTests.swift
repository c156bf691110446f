import Foundation
import Testing

/// The built `dfu` in a real pseudo-terminal under script(1), uploading to a simulated buttonless
/// device served by `dfu-sim run` (bluetoothd's stand-in on a private bus).
@Suite struct PseudoTerminalTests {
    static let script = "/usr/bin/script"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: script) && DFUSimRun.available }
    static let package = UploadCommandTests.package("secure-sd-bl-app.zip")
    /// A buttonless application whose SoftDevice the package's `sd_req` accepts; its bootloader is at address + 1.
    static let device = "buttonless,address=C0:FF:EE:00:00:01,sd_id=0xB7,sd_id_after=0x101"

    /// Runs `dfu ARGUMENTS` in a pseudo-terminal with `environment` (e.g. TERM) and returns what the
    /// terminal received and the status.
    static func inTerminal(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, screen: String) {
        let command = ([TestData.dfuExecutable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let settings = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let run = try await DFUSimRun.run(devices: [device], command: ["/usr/bin/env"] + settings + [script, "-q", "-e", "-c", command, "/dev/null"])
        return (run.status, run.output)
    }

    @Test(.enabled(if: available))
    func liveLineIsRedrawnInPlaceWithColour() async throws {
        let (status, screen) = try await Self.inTerminal(["upload", Self.package, "-d", "C0:FF:EE:00:00:01"],
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
    func noColorInATerminalDrawsWithoutColour() async throws {
        let (status, screen) = try await Self.inTerminal(["upload", Self.package, "-d", "C0:FF:EE:00:00:01"],
                                                   environment: ["TERM": "xterm", "NO_COLOR": "1"])
        #expect(status == 0)
        #expect(screen.contains("\u{1B}[2K"))
        #expect(!screen.contains("\u{1B}[3"))
    }

    @Test(.enabled(if: available))
    func dumbTerminalGetsPlainLines() async throws {
        let (status, screen) = try await Self.inTerminal(["upload", Self.package, "-d", "C0:FF:EE:00:00:01"],
                                                   environment: ["TERM": "dumb"])
        #expect(status == 0)
        #expect(!screen.contains("\u{1B}"))
        #expect(screen.contains("C0:FF:EE:00:00:01: part 2/2 uploading"))
    }
}
