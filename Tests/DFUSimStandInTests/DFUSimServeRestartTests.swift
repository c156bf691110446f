import DBus
import DFUSimStandIn
import Foundation
import Glibc
import TestSupport
import Testing

/// `dfu-sim serve` restarts its stand-in on SIGHUP, as bluetoothd restarting: discovery sessions
/// and device objects are gone, the adapter is served again, the process keeps running.
@Suite(.serialized, .enabled(if: dbusDaemonInstalled && DFUSimProcess.isBuilt, "needs dbus-daemon and dfu-sim"))
struct DFUSimServeRestartTests {
    @Test func sighupRestartsTheStandInWithoutEndingServe() async throws {
        let (process, address) = try await DFUSimProcess.serve(["--device", "secure"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let client = try DBusConnection(address: address)
        defer { client.close() }
        let service = try BusName(BlueZNames.service)
        let adapter = try ObjectPath("/org/bluez/hci0")
        let adapterInterface = try InterfaceName(BlueZNames.adapter)
        func discovering() async throws -> Bool? {
            try await client.property("Discovering", of: adapterInterface, at: adapter, destination: service).boolValue
        }
        _ = try await client.call(
            destination: service, path: adapter, interface: adapterInterface, member: try MemberName("StartDiscovery"),
            arguments: [], timeout: .seconds(5))
        #expect(try await discovering() == true)

        kill(process.processIdentifier, SIGHUP)
        // The restarted stand-in serves the adapter again, with the discovery session gone.
        let deadline = ContinuousClock.now + .seconds(10)
        var restarted = false
        while !restarted, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            restarted = (try? await discovering()) == false
        }
        #expect(restarted)
        #expect(process.isRunning)
        kill(process.processIdentifier, SIGINT)
        #expect(await process.status(endingWithin: .seconds(10)) == 0)
    }
}
