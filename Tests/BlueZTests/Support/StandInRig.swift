import DBus
import DFUCore
import DFUSimStandIn
import DFUSimSupport
import DFUSimulator
import TestSupport

/// bluetoothd's stand-in (``BlueZStandIn``, the one `dfu-sim` serves) on a private dbus-daemon in this process,
/// serving simulated devices to a ``BlueZTransport`` under test, and a connection of its own to read what the bus
/// shows.
final class StandInRig: Sendable {
    /// What the stand-in serves besides its devices.
    struct Options: Sendable {
        /// Link and host timings (MTU, connect timeout, …).
        var link = StandInLink()
        /// The bluetoothd played (version: which properties and methods exist).
        var host = StandInHost()
        /// Link and host faults.
        var faults = StandInFaults()
        /// Whether the first adapter is there, and powered.
        var hasAdapter = true
        var powered = true
        /// Further adapters by name, and whether each is powered.
        var otherAdapters: [(name: String, powered: Bool)] = []
        /// Extra bus policy lines (e.g. a deny rule for org.bluez).
        var extraPolicy: [String] = []
    }

    let daemon: DBusDaemon
    /// The stand-in's connection: it owns org.bluez, so calls from it are bluetoothd's.
    let server: DBusConnection
    /// A client connection for reading the bus.
    let reader: DBusConnection
    let standIn: BlueZStandIn

    /// The bus address clients use.
    var address: String { daemon.address }

    /// Starts a bus (on a thread of its own) and a stand-in for `devices`; ``serve()`` then owns org.bluez on it.
    static func start(devices: [SimulatedDeviceSpec], options: Options = Options()) async throws -> StandInRig {
        let daemon = try await DBusDaemon.start(ownableNames: [try BusName(BlueZNames.service)], extraPolicy: options.extraPolicy)
        do {
            return try StandInRig(daemon: daemon, devices: devices, options: options)
        } catch {
            await daemon.shutDown()
            throw error
        }
    }

    private init(daemon: DBusDaemon, devices: [SimulatedDeviceSpec], options: Options) throws {
        self.daemon = daemon
        server = try DBusConnection(address: daemon.address)
        reader = try DBusConnection(address: daemon.address)
        var configuration = StandInConfiguration(devices: devices, link: options.link, faults: options.faults)
        configuration.host = options.host
        configuration.hasAdapter = options.hasAdapter
        configuration.powered = options.powered
        configuration.otherAdapters = options.otherAdapters
        standIn = try BlueZStandIn(connection: server, configuration: configuration)
    }

    /// Runs `body` on a stand-in for `devices`, served unless `serving` is false; stopped afterwards whatever happens.
    static func with<Result>(
        _ devices: [SimulatedDeviceSpec], options: Options = Options(), serving: Bool = true,
        _ body: (StandInRig) async throws -> Result
    ) async throws -> Result {
        let rig = try await StandInRig.start(devices: devices, options: options)
        do {
            if serving { try await rig.serve() }
            let result = try await body(rig)
            await rig.stop()
            return result
        } catch {
            await rig.stop()
            throw error
        }
    }

    /// Exports the adapters and owns org.bluez.
    func serve() async throws {
        try await standIn.start()
    }

    /// Stops the stand-in and the bus.
    func stop() async {
        await standIn.stop()
        reader.close()
        server.close()
        await daemon.shutDown()
    }

    /// The first device as it is now: firmware, flash, address.
    var device: SimulatedPeripheral {
        get async throws {
            guard let device = await standIn.peripheral(ofDevice: 0) else { throw RigError("no simulated device") }
            return device
        }
    }

    /// The first device's flash now.
    var storage: SimulatedStorage { get async throws { try await device.storage } }
    /// What the first device runs now.
    var firmware: any SimulatedFirmware { get async throws { try await device.firmware } }
    /// The address the first device advertises with now.
    var currentAddress: DFUDeviceAddress { get async throws { try await device.address } }
    /// What the stand-in saw its clients do.
    var observed: StandInObservations { get async { await standIn.observations() } }
    /// Links made to the first device.
    var connections: Int { get async { await standIn.report().devices.first?.stats.connections ?? 0 } }

    /// Whether bluetoothd holds a bond with the device at `address` (Device1.Paired on the bus).
    func isPaired(_ address: DFUDeviceAddress) async throws -> Bool {
        guard let path = standIn.devicePath(for: address) else { return false }
        let objects = try await reader.managedObjects(destination: try BusName(BlueZNames.service))
        return objects[path]?[BlueZNames.device]?["Paired"]?.boolValue == true
    }

    /// The names of the devices bluetoothd knows now (Device1.Name).
    func knownNames() async throws -> [String] {
        let objects = try await reader.managedObjects(destination: try BusName(BlueZNames.service))
        return objects.values.compactMap { $0[BlueZNames.device]?["Name"]?.stringValue }.sorted()
    }

    /// Calls `member` of `agent`, as bluetoothd does; its reply or error.
    func callAgent(
        _ agent: StandInObservations.Agent, _ member: String, _ arguments: [DBusValue],
        timeout: Duration = TestTime.scaled(.seconds(5))
    ) async -> Result<[DBusValue], DBusError> {
        do {
            return .success(
                try await server.call(
                    destination: try BusName(agent.owner), path: agent.path,
                    interface: try InterfaceName("org.bluez.Agent1"), member: try MemberName(member),
                    arguments: arguments, timeout: timeout))
        } catch {
            return .failure(error)
        }
    }

    struct RigError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
