import DBus
import BlueZ
import DFUSimStandIn
import Synchronization

/// A small org.bluez on a private bus, only as much of bluetoothd's server side as the
/// peripheral uses: one adapter (Adapter1 with Address, Powered, Alias, Modalias), GattManager1,
/// LEAdvertisingManager1 and AgentManager1 (at /org/bluez). Like bluetoothd, it reads the application back (GetManagedObjects,
/// GetAll) BEFORE it answers RegisterApplication / RegisterAdvertisement.
final class FakeBluetoothd: Sendable {
    /// What the fake saw.
    struct Seen: Sendable {
        var applications: [ObjectPath: [ObjectPath: [String: [String: DBusValue]]]] = [:]
        var advertisements: [ObjectPath: [String: DBusValue]] = [:]
        var unregisteredApplications: [ObjectPath] = []
        var unregisteredAdvertisements: [ObjectPath] = []
        /// UnregisterAdvertisement and the central's Device1.Disconnect, in the order they came.
        var linkCalls: [String] = []
        var application: BusName?
        /// RegisterAgent's path and capability, RequestDefaultAgent's path, UnregisterAgent's paths.
        var agent: (path: ObjectPath, capability: String)?
        var defaultAgent: ObjectPath?
        var unregisteredAgents: [ObjectPath] = []
        var agentOwner: BusName?
    }

    /// Holds ``Seen`` for the method handlers, which cannot capture a `Mutex` itself.
    final class Recorder: Sendable {
        private let state = Mutex(Seen())

        func withLock<Result: Sendable>(_ body: (inout Seen) -> Result) -> Result {
            state.withLock { body(&$0) }
        }
    }

    let connection: DBusConnection
    let adapterPath: ObjectPath
    /// A central's Device1 on the adapter (only Disconnect), named in ``centralOptions``.
    let centralPath: ObjectPath
    let seen = Recorder()

    /// `version`: the bluetoothd release its Adapter1.Modalias claims (`src/main.c` `init_defaults`: USB vendor 1D6B,
    /// product 0246, version major << 8 | minor), 5.66 by default.
    init(connection: DBusConnection, adapter: String, address: String, version: (major: Int, minor: Int) = (5, 66)) async throws {
        self.connection = connection
        adapterPath = try ObjectPath("/org/bluez/" + adapter)
        try await connection.requestName(try BusName("org.bluez"))
        let advertisementInterface = try InterfaceName("org.bluez.LEAdvertisement1")
        let register = DBusMethod(
            try MemberName("RegisterApplication"), inputs: [DBusArgument("application", "o"), DBusArgument("options", "a{sv}")],
            runsConcurrently: true
        ) { [seen, connection] message in
            guard let sender = message.sender, let root = message.arguments.first?.objectPathValue else {
                throw DBusError(name: "org.bluez.Error.InvalidArguments", message: "no application")
            }
            let objects = try await connection.managedObjects(at: root, destination: sender)
            seen.withLock {
                $0.applications[root] = objects
                $0.application = sender
            }
            return []
        }
        let unregister = DBusMethod(try MemberName("UnregisterApplication"), inputs: [DBusArgument("application", "o")]) {
            [seen] message in
            if let root = message.arguments.first?.objectPathValue { seen.withLock { $0.unregisteredApplications.append(root) } }
            return []
        }
        let registerAdvertisement = DBusMethod(
            try MemberName("RegisterAdvertisement"), inputs: [DBusArgument("advertisement", "o"), DBusArgument("options", "a{sv}")],
            runsConcurrently: true
        ) { [seen, connection] message in
            guard let sender = message.sender, let path = message.arguments.first?.objectPathValue else {
                throw DBusError(name: "org.bluez.Error.InvalidArguments", message: "no advertisement")
            }
            let values = try await connection.allProperties(of: advertisementInterface, at: path, destination: sender)
            seen.withLock { $0.advertisements[path] = values }
            return []
        }
        let unregisterAdvertisement = DBusMethod(
            try MemberName("UnregisterAdvertisement"), inputs: [DBusArgument("advertisement", "o")]
        ) { [seen] message in
            if let path = message.arguments.first?.objectPathValue {
                seen.withLock {
                    $0.unregisteredAdvertisements.append(path)
                    $0.linkCalls.append("UnregisterAdvertisement")
                }
            }
            return []
        }
        let disconnect = DBusMethod(try MemberName("Disconnect")) { [seen] _ in
            seen.withLock { $0.linkCalls.append("Disconnect") }
            return []
        }
        let agent = DBusArgument("agent", "o")
        let registerAgent = DBusMethod(
            try MemberName("RegisterAgent"), inputs: [agent, DBusArgument("capability", "s")]
        ) { [seen] message in
            if let path = message.arguments.first?.objectPathValue, let capability = message.arguments.last?.stringValue {
                seen.withLock {
                    $0.agent = (path, capability)
                    $0.agentOwner = message.sender
                }
            }
            return []
        }
        let requestDefaultAgent = DBusMethod(try MemberName("RequestDefaultAgent"), inputs: [agent]) { [seen] message in
            seen.withLock { $0.defaultAgent = message.arguments.first?.objectPathValue }
            return []
        }
        let unregisterAgent = DBusMethod(try MemberName("UnregisterAgent"), inputs: [agent]) { [seen] message in
            if let path = message.arguments.first?.objectPathValue { seen.withLock { $0.unregisteredAgents.append(path) } }
            return []
        }
        try connection.export(
            [
                DBusInterface(
                    try InterfaceName("org.bluez.AgentManager1"),
                    methods: [registerAgent, requestDefaultAgent, unregisterAgent]),
            ], at: try ObjectPath("/org/bluez"))
        try connection.export(
            [
                DBusInterface(
                    try InterfaceName("org.bluez.Adapter1"),
                    properties: [
                        DBusProperty(try MemberName("Address"), value: .string(address)),
                        DBusProperty(try MemberName("Powered"), value: .boolean(false), access: .readWrite, onSet: { _ in }),
                        DBusProperty(try MemberName("Alias"), value: .string("BlueZ"), access: .readWrite, onSet: { _ in }),
                        DBusProperty(
                            try MemberName("Modalias"),
                            value: .string(BluetoothdRelease(major: version.major, minor: version.minor).modalias)),
                    ]),
                DBusInterface(try InterfaceName("org.bluez.GattManager1"), methods: [register, unregister]),
                DBusInterface(
                    try InterfaceName("org.bluez.LEAdvertisingManager1"),
                    methods: [registerAdvertisement, unregisterAdvertisement]),
            ], at: adapterPath)
        centralPath = try ObjectPath(adapterPath.rawValue + "/dev_00_AA_01_00_00_00")
        try connection.export([DBusInterface(try InterfaceName("org.bluez.Device1"), methods: [disconnect])], at: centralPath)
    }

    /// WriteValue's options as bluetoothd gives them for a write from that central.
    var centralOptions: DBusValue { .stringVariantDictionary(["mtu": .uint16(247), "device": .objectPath(centralPath)]) }

    /// An adapter property as it stands.
    func adapterProperty(_ name: String) throws -> DBusValue? {
        connection.exportedProperty(try MemberName(name), interface: try InterfaceName("org.bluez.Adapter1"), at: adapterPath)
    }

    /// Calls a method of the registered pairing agent, as bluetoothd does when a central pairs.
    func callAgent(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        guard let (owner, agent) = seen.withLock({ seen in seen.agentOwner.flatMap { owner in seen.agent.map { (owner, $0.path) } } })
        else { throw DBusError(name: "org.bluez.Error.Failed", message: "no agent registered") }
        return try await connection.call(
            destination: owner, path: agent, interface: try InterfaceName("org.bluez.Agent1"), member: try MemberName(member),
            arguments: arguments)
    }

    /// Calls a method of the registered application, as bluetoothd does for a remote central.
    func callApplication(
        _ path: ObjectPath, _ member: String, _ arguments: [DBusValue] = []
    ) async throws -> [DBusValue] {
        guard let application = seen.withLock({ $0.application }) else { throw DBusError(name: "org.bluez.Error.Failed", message: "nothing registered") }
        return try await connection.call(
            destination: application, path: path, interface: try InterfaceName("org.bluez.GattCharacteristic1"),
            member: try MemberName(member), arguments: arguments)
    }
}
