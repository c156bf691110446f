import DBus
import DFUSimCommand
import DFUSimStandIn
import DFUSimSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// `dfu` of the same build as `dfu-sim`.
private let builtDFU = BuiltExecutable.url("dfu").path
private let dfuIsBuilt = ToolRun.isInstalled(builtDFU)

/// `dfu` itself, run as a user the bus policy does not let call org.bluez: one line naming the bus
/// policy and the `bluetooth` group, and exit 69 (docs/cli.md, "Exit codes").
@Suite(.serialized, .enabled(if: dbusDaemonInstalled && dfuIsBuilt, "needs dbus-daemon and dfu"))
struct DeniedBusPolicyTests {
    static var dfu: String { builtDFU }
    static var package: String {
        DFUSimProcess.root.appendingPathComponent("Tests/Fixtures/packages/secure-app-1024.zip").path
    }

    /// What a system bus whose policy lacks a rule for this user does: method calls to org.bluez
    /// are refused by the bus (org.freedesktop.DBus.Error.AccessDenied) before bluetoothd sees them.
    static let denyOrgBluez = #"<deny send_destination="org.bluez" send_type="method_call"/>"#

    /// Serves a Secure bootloader as org.bluez on a private bus with `extraPolicy`, and runs
    /// `dfu arguments` on that bus.
    private func runDFU(_ arguments: [String], extraPolicy: [String]) async throws -> ToolRun {
        let service = try BusName(BlueZNames.service)
        let daemon = try await DBusDaemon.start(ownableNames: [service], extraPolicy: extraPolicy)
        return try await daemon.shuttingDown {
            try await whileServingASecureBootloader(on: daemon) {
                try await ToolRun.run(
                    "/usr/bin/env", ["DBUS_SYSTEM_BUS_ADDRESS=\(daemon.address)", "NO_COLOR=1", Self.dfu] + arguments,
                    timeout: .seconds(30))
            }
        }
    }

    static let commands: [[String]] = [
        ["scan", "--timeout", "1"],
        ["upload", package, "--device", "C0:FF:EE:00:00:10", "--scan-timeout", "2"],
    ]

    @Test(arguments: commands)
    func aDeniedBusCallEndsDfuWithOneLineNamingThePolicyAndExit69(arguments: [String]) async throws {
        let run = try await runDFU(arguments, extraPolicy: [Self.denyOrgBluez])
        let lines = run.output.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }
        #expect(run.status == 69, "\(run.output)")
        #expect(lines.count == 1, "\(run.output)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix("dfu: "))
        #expect(line.contains("permission denied by the D-Bus policy for org.bluez"))
        #expect(line.contains("bluetooth group"))
    }

    @Test func theSameBusWithoutTheDenyRuleLetsDfuScan() async throws {
        let run = try await runDFU(["scan", "--timeout", "1"], extraPolicy: [])
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("permission denied"))
    }
}

/// The README's advice for a system whose BlueZ policy admits only root and the `bluetooth` group,
/// checked with real credentials: `dfu` run as `nobody` (via setpriv) on a private bus whose policy
/// is the system bus's default (method calls denied) plus such a bluetooth.conf. Needs root.
@Suite(.serialized, .enabled(if: dbusDaemonInstalled && dfuIsBuilt && canSwitchUser, "needs root, setpriv, the bluetooth group"))
struct BusPolicyAsAnotherUserTests {
    /// The system bus's default context (method calls denied; the bus itself reachable) and a BlueZ
    /// policy admitting root (owner) and the bluetooth group only.
    static func configuration(listeningAt socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <deny own="*"/>
            <deny send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_requested_reply="true" send_type="method_return"/>
            <allow send_requested_reply="true" send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
            <allow receive_type="signal"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
          </policy>
          <policy user="root">
            <allow own="org.bluez"/>
            <allow send_destination="org.bluez"/>
          </policy>
          <policy group="bluetooth">
            <allow send_destination="org.bluez"/>
          </policy>
        </busconfig>
        """
    }

    /// Runs `dfu scan --timeout 1` as `nobody`, with the supplementary groups given (numeric ids).
    private func scanAsNobody(groups: [UInt32]) async throws -> ToolRun {
        // A socket directory others can enter (DBusDaemon's own is private to root).
        let directory = "/tmp/dfu-policy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The checkout may sit in a folder nobody cannot enter (a 0700 mktemp -d, a 0750 home):
        // run a copy of the built dfu from the directory nobody can reach.
        // A hard link opens no file for writing, so no process forked meanwhile by another test can
        // hold it open ("Text file busy" at exec); a copy only across file systems.
        let staged = directory + "/dfu"
        if link(builtDFU, staged) != 0 {
            try FileManager.default.copyItem(atPath: builtDFU, toPath: staged)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: staged)
        }
        let daemon = try await DBusDaemon.start { _ in Self.configuration(listeningAt: directory + "/bus") }
        let groupOption = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        return try await daemon.shuttingDown {
            try await whileServingASecureBootloader(on: daemon) {
                try await ToolRun.run(
                    "/usr/bin/setpriv",
                    [
                        "--reuid=65534", "--regid=65534", groupOption, "/usr/bin/env",
                        "DBUS_SYSTEM_BUS_ADDRESS=\(daemon.address)", "NO_COLOR=1", staged, "scan", "--timeout", "1",
                    ], timeout: .seconds(30))
            }
        }
    }

    @Test func aUserOutsideTheBluetoothGroupIsRefusedWithTheHintAndExit69() async throws {
        let run = try await scanAsNobody(groups: [])
        let lines = run.output.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }
        #expect(run.status == 69, "\(run.output)")
        #expect(lines.count == 1, "\(run.output)")
        #expect(lines.first?.contains("permission denied by the D-Bus policy for org.bluez") == true)
        #expect(lines.first?.contains("uid=65534") == true)
        #expect(lines.first?.contains("bluetooth group") == true)
    }

    @Test func theSameUserInTheBluetoothGroupScans() async throws {
        let group = try #require(bluetoothGroup)
        let run = try await scanAsNobody(groups: [group])
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("permission denied"))
    }
}

/// The id of the `bluetooth` group, when there is one.
private let bluetoothGroup: UInt32? = getgrnam("bluetooth").map { $0.pointee.gr_gid }

/// Whether this process can run a command as `nobody` with other groups (root, setpriv installed).
private let canSwitchUser = getuid() == 0 && ToolRun.isInstalled("/usr/bin/setpriv") && bluetoothGroup != nil

/// Serves a Secure bootloader as org.bluez on `daemon`'s bus while `body` runs.
private func whileServingASecureBootloader<T>(on daemon: DBusDaemon, _ body: () async throws -> T) async throws -> T {
    let connection = try DBusConnection(address: daemon.address)
    defer { connection.close() }
    let configuration = StandInConfiguration(devices: [try SimulatedDeviceSpec(parsing: "secure")])
    let standIn = try BlueZStandIn(connection: connection, configuration: configuration)
    try await standIn.start()
    do {
        let result = try await body()
        await standIn.stop()
        return result
    } catch {
        await standIn.stop()
        throw error
    }
}
