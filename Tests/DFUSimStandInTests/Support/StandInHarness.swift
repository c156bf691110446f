import DBus
import DFUCore
import DFUSimCommand
import DFUSimStandIn
import DFUSimSupport
import Foundation
import IOLoop
import Synchronization
import Testing

/// A private system-like bus serving a ``BlueZStandIn`` in this process, and a client connection
/// that records every signal org.bluez sends.
final class StandInHarness: Sendable {
    let daemon: DBusDaemon
    let server: DBusConnection
    let client: DBusConnection
    let standIn: BlueZStandIn
    let signals: SignalLog
    let service: BusName
    private let listener: Task<Void, Never>

    init(
        devices: [String], link: String? = nil, bluetoothd: String? = nil, faults: [String] = [], powered: Bool = true
    ) async throws {
        let service = try BusName(BlueZNames.service)
        self.service = service
        // Started and, should the rest fail, stopped on a thread of its own.
        let daemon = try await DBusDaemon.start(ownableNames: [service])
        self.daemon = daemon
        do {
            server = try DBusConnection(address: daemon.address)
            client = try DBusConnection(address: daemon.address)
            var configuration = StandInConfiguration(
                devices: try devices.enumerated().map { try SimulatedDeviceSpec(parsing: $0.element, index: $0.offset) })
            if let link { configuration.link = try StandInLink(parsing: link) }
            if let bluetoothd { configuration.host = try StandInHost(parsing: bluetoothd) }
            for fault in faults { try configuration.faults.add(parsing: fault) }
            configuration.powered = powered
            standIn = try BlueZStandIn(connection: server, configuration: configuration)
        } catch {
            await daemon.shutDown()
            throw error
        }
        let log = SignalLog()
        signals = log
        let stream = try await client.signals(matching: DBusMatchRule(sender: service))
        listener = Task(executorPreference: client.loop) {
            for await message in stream { log.append(message) }
        }
        try await standIn.start()
    }

    /// Stops everything this harness started.
    func close() async {
        await standIn.stop()
        listener.cancel()
        client.close()
        server.close()
        await daemon.shutDown()
    }

    /// `/org/bluez/hci0`.
    var adapter: ObjectPath { get throws { try ObjectPath("/org/bluez/hci0") } }

    /// Calls the stand-in. The default timeout is long: the stand-in answers from this test process's
    /// task pool, which the suites that wait for child processes can keep busy for seconds; tests of
    /// timing pass their own.
    func call(
        _ path: ObjectPath, _ interface: String, _ method: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(30)
    ) async throws -> [DBusValue] {
        try await client.call(
            destination: service, path: path, interface: try InterfaceName(interface),
            member: try MemberName(method), arguments: arguments, timeout: timeout)
    }

    func property(_ name: String, of interface: String, at path: ObjectPath) async throws -> DBusValue {
        try await client.property(name, of: try InterfaceName(interface), at: path, destination: service)
    }

    /// Starts discovery (LE, optional UUID filter) and waits until a Device1 at `address` exists.
    @discardableResult
    func discover(_ address: String, uuids: [String] = []) async throws -> ObjectPath {
        var filter: [String: DBusValue] = ["Transport": .string("le")]
        if !uuids.isEmpty { filter["UUIDs"] = .stringArray(uuids) }
        _ = try await call(try adapter, BlueZNames.adapter, "SetDiscoveryFilter", [.stringVariantDictionary(filter)])
        _ = try await call(try adapter, BlueZNames.adapter, "StartDiscovery")
        let path = try #require(
            ObjectPath(rawValue: "/org/bluez/hci0/dev_" + address.replacingOccurrences(of: ":", with: "_")))
        try await waitUntil("\(address) is discovered") {
            let objects = try await self.client.managedObjects(destination: self.service)
            return objects[path]?[BlueZNames.device] != nil
        }
        _ = try await call(try adapter, BlueZNames.adapter, "StopDiscovery")
        return path
    }

    /// Connects and waits for ServicesResolved.
    func connect(_ device: ObjectPath) async throws {
        _ = try await call(device, BlueZNames.device, "Connect")
        try await waitUntil("services resolved") {
            try await self.property("ServicesResolved", of: BlueZNames.device, at: device).boolValue == true
        }
    }

    /// The object paths under `device` (its GATT objects), sorted.
    func gattObjects(of device: ObjectPath) async throws -> [String] {
        try await client.managedObjects(destination: service).keys.filter { device.isAncestor(of: $0) }
            .map(\.rawValue).sorted()
    }

    /// The characteristic paths of a connected device by lower-case UUID.
    func characteristics(of device: ObjectPath) async throws -> [String: ObjectPath] {
        var result: [String: ObjectPath] = [:]
        for (path, interfaces) in try await client.managedObjects(destination: service)
        where device.isAncestor(of: path) {
            if let uuid = interfaces[BlueZNames.gattCharacteristic]?["UUID"]?.stringValue { result[uuid] = path }
        }
        return result
    }

    /// Notifications (PropertiesChanged of Value) on `characteristic` seen so far.
    func notifications(on characteristic: ObjectPath) -> [[UInt8]] {
        signals.messages.compactMap { message in
            guard message.path == characteristic, let changed = DBusPropertiesChanged(message),
                changed.interface == BlueZNames.gattCharacteristic
            else { return nil }
            return changed.changed["Value"]?.byteArrayValue
        }
    }

    /// Waits (polling every 5 ms, on the loop's timer) until `condition` holds, failing after `timeout` (long, as for
    /// ``call``).
    func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await LoopClock(loop: client.loop).sleep(for: .milliseconds(5))
        }
        throw HarnessTimeout(what: what)
    }

    /// Waits for the `count`-th notification on `characteristic` and returns it.
    func notification(_ count: Int, on characteristic: ObjectPath) async throws -> [UInt8] {
        try await waitUntil("notification \(count)") { self.notifications(on: characteristic).count >= count }
        return notifications(on: characteristic)[count - 1]
    }
}

/// Runs `body` with a fresh harness, closing it in every path.
func withStandIn(
    devices: [String], link: String? = nil, bluetoothd: String? = nil, faults: [String] = [], powered: Bool = true,
    _ body: (StandInHarness) async throws -> Void
) async throws {
    let harness = try await StandInHarness(
        devices: devices, link: link, bluetoothd: bluetoothd, faults: faults, powered: powered)
    do {
        // The test drives the stand-in from its connection's event loop, as dfu's engine runs on its loop: its
        // round trips do not wait behind the test run's queued tasks on Swift's shared pool (under load a 1 s
        // delay the stand-in models was not told apart from the test's own turns on that pool).
        try await withTaskExecutorPreference(harness.client.loop) {
            try await body(harness)
        }
    } catch {
        await harness.close()
        throw error
    }
    await harness.close()
}

/// Whether a `dbus-daemon` can be started here.
let dbusDaemonInstalled = DBusDaemon.executablePath() != nil
