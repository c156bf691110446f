import DBus
import DFUSimSupport

/// A `dbus-daemon` started for one test, with a permissive policy plus `denyRules`.
///
/// Started through ``DBusDaemon``, which fails with a clear message when `dbus-daemon` is not
/// installed (these tests need a real bus; CI installs it).
final class PrivateBus: Sendable {
    let daemon: DBusDaemon

    var address: String { daemon.address }

    private init(daemon: DBusDaemon) {
        self.daemon = daemon
    }

    /// Starts the daemon (on a thread of its own: no thread of Swift's shared pool waits for it).
    static func start(denyRules: [String] = []) async throws -> PrivateBus {
        PrivateBus(daemon: try await DBusDaemon.start { socketPath in
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
        })
    }

    /// Whether the daemon process is still running.
    var isRunning: Bool { daemon.isRunning }

    /// Stops the daemon and removes its directory.
    func stop() async {
        await daemon.shutDown()
    }
}

/// Runs `body` with a fresh private bus and stops the bus afterwards, even when `body` throws.
func withPrivateBus<Result>(
    denyRules: [String] = [],
    _ body: (PrivateBus) async throws -> Result
) async throws -> Result {
    let bus = try await PrivateBus.start(denyRules: denyRules)
    return try await bus.daemon.shuttingDown { try await body(bus) }
}

/// Runs `body` with a daemon that has the system-like policy (``DBusDaemon/init(ownableNames:extraPolicy:startTimeout:)``),
/// started and stopped on threads of their own, stopped even when `body` throws.
func withDaemon<Result>(
    ownableNames: [BusName], extraPolicy: [String] = [],
    _ body: (DBusDaemon) async throws -> Result
) async throws -> Result {
    let daemon = try await DBusDaemon.start(ownableNames: ownableNames, extraPolicy: extraPolicy)
    return try await daemon.shuttingDown { try await body(daemon) }
}
