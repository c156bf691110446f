import DBus
import DFUSimSupport

/// A `dbus-daemon` started for one test, with a permissive policy plus `denyRules`.
///
/// Started through ``DBusDaemon``, which fails with a clear message when `dbus-daemon` is not
/// installed (these tests need a real bus; CI installs it).
final class PrivateBus: Sendable {
    let daemon: DBusDaemon

    var address: String { daemon.address }

    init(denyRules: [String] = []) throws {
        daemon = try DBusDaemon { socketPath in
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socketPath)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                \(denyRules.joined(separator: "\n    "))
              </policy>
            </busconfig>
            """
        }
    }

    /// Whether the daemon process is still running.
    var isRunning: Bool { daemon.isRunning }

    /// Stops the daemon and removes its directory.
    func stop() {
        daemon.stop()
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
