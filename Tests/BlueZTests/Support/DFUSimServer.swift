import DFUCrypto
import DFUSimSupport
import FoundationEssentials
import Glibc
import ProcessSpawning
import SystemSupport
import TestSupport

/// `dfu-sim run` as a child process: the project's bluetoothd stand-in on its own private bus.
///
/// The command dfu-sim runs is a shell that prints `DBUS_SYSTEM_BUS_ADDRESS` and waits for its
/// standard input to close; ``stop()`` closes it, so dfu-sim ends the normal way and writes its
/// report. Only dfu-sim's command line, the bus address and the `--report` JSON are used: the same
/// org.bluez API as bluetoothd, never the stand-in's internals.
final class DFUSimServer: Sendable {
    /// The bus address `dfu-sim` printed.
    let address: String
    let processIdentifier: pid_t
    let reportPath: String
    /// The write end of the shell's standard input.
    let release: Int32

    /// The built `dfu-sim`, when present.
    static var executable: String? {
        BuiltExecutable.isBuilt("dfu-sim") ? BuiltExecutable.url("dfu-sim").path : nil
    }

    /// Whether the live tests through dfu-sim can run here.
    static var isAvailable: Bool { executable != nil }

    /// What dfu-sim's report says about one device.
    struct Report: Decodable {
        struct Device: Decodable {
            struct Image: Decodable {
                var size: Int
                var crc32: String
            }
            struct Statistics: Decodable {
                var connections: Int
                var acquireWrite: Int?
                var acquireNotify: Int?
                var startNotify: Int?
                var writeValueCommands: Int?
                var smpRequests: Int?
                var smpRetransmissions: Int?
                var smpResets: Int?

                enum CodingKeys: String, CodingKey {
                    case connections
                    case acquireWrite = "acquire_write"
                    case acquireNotify = "acquire_notify"
                    case startNotify = "start_notify"
                    case writeValueCommands = "write_value_commands"
                    case smpRequests = "smp_requests"
                    case smpRetransmissions = "smp_retransmissions"
                    case smpResets = "smp_resets"
                }
            }
            /// An MCUboot slot of an SMP device.
            struct Slot: Decodable {
                var image: Int
                var slot: Int
                var version: String
                var hash: String
                var size: Int
                var active: Bool
                var pending: Bool
                var confirmed: Bool
            }
            var address: String
            var kind: String
            var images: [String: Image]
            var stats: Statistics
            var slots: [Slot]?
        }
        var devices: [Device]
    }

    /// Starts `dfu-sim run` with `arguments` and waits for its bus address (at most 10 s) on a thread of
    /// its own (``offThePool(_:)``), not on Swift's shared pool.
    static func start(_ arguments: [String]) async throws -> DFUSimServer {
        try await offThePool { try DFUSimServer(arguments) }
    }

    /// ``start(_:)``'s work, which blocks the calling thread until dfu-sim gives its address.
    private init(_ arguments: [String]) throws {
        guard let executable = Self.executable else { throw ServerError("dfu-sim is not built") }
        var template = Array("/tmp/dfu-sim-report-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw ServerError("mkstemp failed") }
        close(descriptor)
        reportPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var pipeEnds: [Int32] = [-1, -1]
        var inputEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0, pipe(&inputEnds) == 0 else { throw ServerError("pipe failed") }
        // Only the child's standard input and output get these pipes (dup2 clears the flag there).
        for end in pipeEnds + inputEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        release = inputEnds[1]
        var options = SpawnedProcess.Options()
        options.descriptors = [(FileDescriptor(rawValue: pipeEnds[1]), .standardOutput), (FileDescriptor(rawValue: inputEnds[0]), .standardInput)]
        let shell = #"echo "$DBUS_SYSTEM_BUS_ADDRESS"; read -r _ || true"#
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess(
                [executable, "run", "--report", reportPath] + arguments + ["--", "/bin/sh", "-c", shell], options: options)
        } catch {
            for end in [pipeEnds[1], inputEnds[0], release, pipeEnds[0]] { close(end) }
            throw ServerError("cannot start dfu-sim: \(error)")
        }
        close(pipeEnds[1])
        close(inputEnds[0])
        let pid = child.processIdentifier
        processIdentifier = pid
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 10_000) > 0, read(pipeEnds[0], &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        close(pipeEnds[0])
        address = String(decoding: line, as: UTF8.self)
        guard address.hasPrefix("unix:") else {
            close(release)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            throw ServerError("dfu-sim printed no bus address: \(address)")
        }
    }

    /// Runs `body` with a server for `arguments`, stopped afterwards (its report dropped) whatever `body` does.
    static func with<Result>(_ arguments: [String], _ body: (DFUSimServer) async throws -> Result) async throws -> Result {
        let server = try await start(arguments)
        do {
            let result = try await body(server)
            _ = try? await server.stop()
            return result
        } catch {
            _ = try? await server.stop()
            throw error
        }
    }

    /// Ends the shell, waits for dfu-sim to stop (on a thread of its own, not one of Swift's shared pool) and
    /// returns its report.
    func stop() async throws -> Report {
        try await offThePool { [self] in try stopWaiting() }
    }

    /// ``stop()``'s work, which waits for dfu-sim on the calling thread.
    @available(*, noasync, message: "blocks its thread: use stop()")
    private func stopWaiting() throws -> Report {
        close(release)
        var status: Int32 = 0
        waitpid(processIdentifier, &status, 0)
        defer { unlink(reportPath) }
        guard let file = fopen(reportPath, "r") else { throw ServerError("no report") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return try JSONDecoder().decode(Report.self, from: Data(bytes))
    }

    /// The report's form of an image: size and CRC-32 in 8 lower-case hex digits.
    static func imageSummary(_ bytes: [UInt8]) -> (size: Int, crc32: String) {
        let hex = String(CRC32.checksum(bytes), radix: 16)
        return (bytes.count, String(repeating: "0", count: 8 - hex.count) + hex)
    }

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
