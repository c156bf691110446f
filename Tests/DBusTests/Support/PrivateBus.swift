import Foundation
import Glibc
import Synchronization

/// A `dbus-daemon` started for one test, listening on a socket in a fresh temporary directory.
///
/// The bus policy allows everything except what `denyRules` forbids. The daemon is
/// terminated by ``stop()``; ``withPrivateBus(denyRules:_:)`` always calls it.
final class PrivateBus: Sendable {
    /// Why a private bus could not be started.
    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    let address: String
    private let process: Process
    private let directory: URL
    private let stopped = Mutex(false)

    /// Where `dbus-daemon` is, looked up on `PATH` and in the usual places.
    static func daemonPath() throws -> String {
        let pathDirectories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in pathDirectories + ["/usr/bin", "/bin", "/usr/local/bin"] {
            let candidate = directory + "/dbus-daemon"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw SetupError(
            description:
                "dbus-daemon was not found on PATH: these tests need a real bus (install the dbus-daemon package)")
    }

    init(denyRules: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("dbus-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory.path)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/>
                <allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                <allow receive_type="signal"/>
                \(denyRules.joined(separator: "\n    "))
              </policy>
            </busconfig>
            """
        let configPath = directory.appendingPathComponent("bus.conf").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)

        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.daemonPath())
        process.arguments = ["--config-file=\(configPath)", "--nofork", "--print-address=1"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        // Read the address line, waiting at most five seconds.
        let descriptor = output.fileHandleForReading.fileDescriptor
        var line = [UInt8]()
        let deadline = ContinuousClock.now + .seconds(5)
        while !line.contains(UInt8(ascii: "\n")) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(remaining.components.seconds * 1000 + 1)
            guard poll(&descriptors, 1, milliseconds) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            line += buffer[0..<count]
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("unix:") else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
            throw SetupError(description: "dbus-daemon did not print its address (got \"\(text)\")")
        }
        address = text
    }

    /// Whether the daemon process is still running.
    var isRunning: Bool { process.isRunning }

    /// Kills the daemon and removes its directory.
    ///
    /// SIGKILL, because the daemon may inherit a signal mask that blocks SIGTERM.
    func stop() {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        stop()
    }
}

/// Runs `body` with a fresh private bus and stops the bus afterwards, even when `body` throws.
func withPrivateBus<Result>(
    denyRules: [String] = [],
    _ body: (PrivateBus) async throws -> Result
) async throws -> Result {
    let bus = try PrivateBus(denyRules: denyRules)
    defer { bus.stop() }
    return try await body(bus)
}
