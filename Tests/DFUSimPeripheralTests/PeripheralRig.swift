import DBus
import DFUCore
import DFUSimCommand
import DFUSimPeripheral
import DFUSimStandIn
import DFUSimSupport
import Testing

/// The peripheral's test bench: a private dbus-daemon with the fake bluetoothd on it.
enum PeripheralRig {
    /// A private bus with the fake bluetoothd (adapter hci1) and a started peripheral, stopped after
    /// `body`; returns the fake, which keeps what it saw.
    @discardableResult
    static func withPeripheral(
        _ spec: String, acceptsPairing: Bool = false, bluetoothd version: (major: Int, minor: Int) = (5, 66),
        _ body: (FakeBluetoothd, PeripheralHost) async throws -> Void
    ) async throws -> FakeBluetoothd {
        // Started and stopped on threads of their own, stopped whatever the body does.
        let daemon = try await DBusDaemon.start(ownableNames: [try BusName("org.bluez")])
        return try await daemon.shuttingDown {
            try await withPeripheral(on: daemon, spec, acceptsPairing: acceptsPairing, bluetoothd: version, body)
        }
    }

    private static func withPeripheral(
        on daemon: DBusDaemon, _ spec: String, acceptsPairing: Bool, bluetoothd version: (major: Int, minor: Int),
        _ body: (FakeBluetoothd, PeripheralHost) async throws -> Void
    ) async throws -> FakeBluetoothd {
        let bluezConnection = try DBusConnection(address: daemon.address)
        defer { bluezConnection.close() }
        let peripheralConnection = try DBusConnection(address: daemon.address)
        defer { peripheralConnection.close() }
        let bluez = try await FakeBluetoothd(
            connection: bluezConnection, adapter: "hci1", address: "00:AA:01:01:00:01", version: version)
        let address = try #require(DFUDeviceAddress("00:AA:01:01:00:01"))
        var configuration = PeripheralHost.Configuration(
            adapter: "hci1", device: try SimulatedDeviceSpec(parsing: spec))
        configuration.acceptsPairing = acceptsPairing
        let host = try PeripheralHost(
            connection: peripheralConnection, configuration: configuration, address: address, log: { _ in })
        try await host.start()
        try await body(bluez, host)
        await host.stop()
        return bluez
    }
}
