import DBus

/// Typed calls to bluetoothd's org.bluez API; every failure is a ``BlueZError``. The bus stays
/// inside: callers see adapters, devices, paths, events and sockets.
public struct BlueZClient: Sendable {
    /// The bus connection (a real one, or a fake in tests).
    let bus: any DBusClient
    /// The connection ``open(busAddress:)`` made, closed by ``close()``.
    private let ownedConnection: DBusConnection?
    /// Timeout for calls that only touch bluetoothd's own state.
    public var callTimeout: Duration

    /// Makes a client over `bus`.
    init(bus: any DBusClient, callTimeout: Duration = .seconds(10)) {
        self.bus = bus
        ownedConnection = nil
        self.callTimeout = callTimeout
    }

    private init(connection: DBusConnection) {
        bus = connection
        ownedConnection = connection
        callTimeout = .seconds(10)
    }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), or the bus at `busAddress`.
    /// Throws ``BlueZError/busUnavailable(_:)`` or ``BlueZError/accessDenied(_:)`` when it cannot.
    public static func open(busAddress: String? = nil) throws(BlueZError) -> BlueZClient {
        do {
            if let busAddress {
                return BlueZClient(connection: try DBusConnection(address: busAddress))
            }
            return BlueZClient(connection: try DBusConnection.systemBus())
        } catch {
            let mapped = BlueZError(error)
            if case .accessDenied = mapped { throw mapped }
            throw BlueZError.busUnavailable(error.message.isEmpty ? error.name : error.message)
        }
    }

    /// Why `address` (the value of `DBUS_SYSTEM_BUS_ADDRESS`) is not used for the system bus, or nil when it
    /// is: only `unix:` addresses are (``DBusConnection/systemBusAddressDefect(_:)``).
    public static func systemBusAddressDefect(_ address: String) -> String? {
        DBusConnection.systemBusAddressDefect(address)
    }

    /// Closes the bus connection ``open(busAddress:)`` made (a client over another's bus leaves it open).
    public func close() {
        ownedConnection?.close()
    }

    /// Calls an org.bluez method; `timeout` defaults to ``callTimeout``.
    func call(
        _ member: String, on interface: String, at path: BlueZPath, arguments: [DBusValue] = [],
        timeout: Duration? = nil
    ) async throws(BlueZError) -> [DBusValue] {
        do {
            return try await bus.call(
                destination: try Self.serviceName(), path: path.objectPath, interface: try InterfaceName(interface),
                member: try MemberName(member), arguments: arguments, timeout: timeout ?? callTimeout)
        } catch {
            throw BlueZError(error)
        }
    }

    // MARK: Objects and properties

    /// Every object BlueZ exports (`ObjectManager.GetManagedObjects` on `/`).
    public func objects() async throws(BlueZError) -> BlueZObjectTree {
        do {
            return BlueZObjectTree(
                try await bus.managedObjects(at: .root, destination: try BusName(BlueZInterfaces.service), timeout: callTimeout))
        } catch {
            throw BlueZError(error)
        }
    }

    /// Writes a property of an org.bluez object (`Properties.Set`).
    func setProperty(_ name: String, of interface: String, at path: BlueZPath, to value: DBusValue)
        async throws(BlueZError)
    {
        do {
            try await bus.setProperty(
                name, of: try InterfaceName(interface), at: path.objectPath, to: value,
                destination: try BusName(BlueZInterfaces.service), timeout: callTimeout)
        } catch {
            throw BlueZError(error)
        }
    }

    /// What org.bluez announces (adapters and devices appearing, changing and going, characteristic
    /// values), decoded, in arrival order: the events of one signal at a time. Subscribed before this
    /// returns; the sequence ends when bluetoothd leaves the bus or the bus closes.
    ///
    /// The GATT services and characteristics exported or removed go to `gattObjects`, as the bus connection reads
    /// their signals: a reply bluetoothd sent after them resumes its caller only once `gattObjects` has them
    /// (``DBusConnection/signals(matching:onDelivery:)``).
    public func events(gattObjects: @escaping @Sendable (BlueZGattObjectChange) -> Void) async throws(BlueZError)
        -> some AsyncSequence<[BlueZEvent], Never> & Sendable
    {
        do {
            let rule = DBusMatchRule(sender: try BusName(BlueZInterfaces.service))
            let observer: @Sendable (DBusMessage) -> Void = { message in
                if let change = BlueZGattObjectChange.decode(message) { gattObjects(change) }
            }
            // Decoded as the consumer reads them: no task or queue of its own in between.
            return try await bus.signals(matching: rule, onDelivery: observer).map(BlueZEvent.decode)
        } catch {
            throw BlueZError(error)
        }
    }

    /// Whether bluetoothd owns org.bluez, each time that changes (false: it left the bus, true: it
    /// took the name again after a restart).
    public func presenceChanges() async throws(BlueZError) -> some AsyncSequence<Bool, Never> & Sendable {
        do {
            let rule = DBusMatchRule(
                sender: try BusName("org.freedesktop.DBus"), interface: try InterfaceName("org.freedesktop.DBus"),
                member: try MemberName("NameOwnerChanged"), stringArguments: [0: BlueZInterfaces.service])
            // NameOwnerChanged(name, old owner, new owner): the new owner is empty when it left.
            return try await bus.signals(matching: rule).map { $0.arguments.last?.stringValue != "" }
        } catch {
            throw BlueZError(error)
        }
    }

    // MARK: Adapter1

    /// `Adapter1.SetDiscoveryFilter`: LE only, optional service UUIDs, duplicates reported (RSSI updates).
    public func setDiscoveryFilter(adapter: BlueZPath, serviceUUIDs: [String]) async throws(BlueZError) {
        var filter: [String: DBusValue] = ["Transport": .string("le"), "DuplicateData": .boolean(true)]
        if !serviceUUIDs.isEmpty { filter["UUIDs"] = .stringArray(serviceUUIDs.map { $0.lowercased() }) }
        _ = try await call(
            "SetDiscoveryFilter", on: BlueZInterfaces.adapter, at: adapter, arguments: [.stringVariantDictionary(filter)])
    }

    /// `Adapter1.StartDiscovery`.
    public func startDiscovery(adapter: BlueZPath) async throws(BlueZError) {
        _ = try await call("StartDiscovery", on: BlueZInterfaces.adapter, at: adapter)
    }

    /// `Adapter1.StopDiscovery`.
    public func stopDiscovery(adapter: BlueZPath) async throws(BlueZError) {
        _ = try await call("StopDiscovery", on: BlueZInterfaces.adapter, at: adapter)
    }

    /// `Adapter1.RemoveDevice`: forgets the device, its bond and its cached GATT database.
    public func removeDevice(_ device: BlueZPath, adapter: BlueZPath) async throws(BlueZError) {
        _ = try await call("RemoveDevice", on: BlueZInterfaces.adapter, at: adapter, arguments: [.objectPath(device.objectPath)])
    }

    // MARK: Device1

    /// `Device1.Connect`, waiting at most `timeout` for the reply.
    public func connect(device: BlueZPath, timeout: Duration) async throws(BlueZError) {
        _ = try await call("Connect", on: BlueZInterfaces.device, at: device, timeout: timeout)
    }

    /// `Device1.Disconnect`.
    public func disconnect(device: BlueZPath) async throws(BlueZError) {
        _ = try await call("Disconnect", on: BlueZInterfaces.device, at: device)
    }

    /// `Device1.Pair`, waiting at most `timeout`.
    public func pair(device: BlueZPath, timeout: Duration) async throws(BlueZError) {
        _ = try await call("Pair", on: BlueZInterfaces.device, at: device, timeout: timeout)
    }

    /// `Device1.CancelPairing`: ends a Pair in progress (bluetoothd answers it AuthenticationCanceled).
    public func cancelPairing(device: BlueZPath) async throws(BlueZError) {
        _ = try await call("CancelPairing", on: BlueZInterfaces.device, at: device)
    }

    // MARK: AgentManager1

    /// `AgentManager1.RegisterAgent`: the agent exported at `path` on this client's connection answers this
    /// connection's pairings (bluetoothd 5.66 `src/device.c` `pair_device`: `agent_get(sender)`), and becomes the
    /// default agent when the host has none (`src/agent.c` `agent_create`).
    public func registerAgent(_ path: BlueZPath, capability: String) async throws(BlueZError) {
        _ = try await call(
            "RegisterAgent", on: BlueZInterfaces.agentManager, at: Self.agentManagerPath,
            arguments: [.objectPath(path.objectPath), .string(capability)])
    }

    /// `AgentManager1.UnregisterAgent`.
    public func unregisterAgent(_ path: BlueZPath) async throws(BlueZError) {
        _ = try await call(
            "UnregisterAgent", on: BlueZInterfaces.agentManager, at: Self.agentManagerPath,
            arguments: [.objectPath(path.objectPath)])
    }

    /// `/org/bluez`, where AgentManager1 lives.
    static var agentManagerPath: BlueZPath {
        BlueZPath("/org/bluez") ?? BlueZPath(.root)
    }

    /// `Device1.Connected`, read now (`Properties.Get`).
    public func isConnected(device: BlueZPath) async throws(BlueZError) -> Bool {
        let value = try await property("Connected", of: BlueZInterfaces.device, at: device)
        guard let connected = value.boolValue else {
            throw BlueZError.unexpectedReply("Connected is \"\(DBusValue.signature(of: [value]))\", not \"b\"")
        }
        return connected
    }

    /// Reads a property of an org.bluez object (`Properties.Get`).
    func property(_ name: String, of interface: String, at path: BlueZPath) async throws(BlueZError) -> DBusValue {
        do {
            return try await bus.property(
                name, of: try InterfaceName(interface), at: path.objectPath,
                destination: try BusName(BlueZInterfaces.service), timeout: callTimeout)
        } catch {
            throw BlueZError(error)
        }
    }

    // MARK: GattCharacteristic1

    /// The link's ATT MTU as bluetoothd has it now: a characteristic's `MTU` (bluetoothd 5.62 and later;
    /// `src/gatt-client.c` `characteristic_get_mtu` reads it from the current link, where the value its
    /// `InterfacesAdded` carried is that of the link it was exported on).
    public func linkMTU(characteristic: BlueZPath) async throws(BlueZError) -> Int {
        let value = try await property("MTU", of: BlueZInterfaces.gattCharacteristic, at: characteristic)
        guard let mtu = value.integerValue else {
            throw BlueZError.unexpectedReply("MTU is \"\(DBusValue.signature(of: [value]))\", not \"q\"")
        }
        return Int(mtu)
    }

    /// `GattCharacteristic1.ReadValue` with no options.
    public func readValue(characteristic: BlueZPath) async throws(BlueZError) -> [UInt8] {
        let reply = try await call(
            "ReadValue", on: BlueZInterfaces.gattCharacteristic, at: characteristic,
            arguments: [.stringVariantDictionary([:])])
        guard reply.count == 1, let bytes = reply[0].byteArrayValue else {
            throw BlueZError.unexpectedReply("ReadValue returned \"\(DBusValue.signature(of: reply))\", not \"ay\"")
        }
        return bytes
    }

    /// `GattCharacteristic1.WriteValue` with `type` = `request` (acknowledged) or `command` (not).
    public func writeValue(_ bytes: [UInt8], characteristic: BlueZPath, withResponse: Bool, timeout: Duration? = nil)
        async throws(BlueZError)
    {
        let options = DBusValue.stringVariantDictionary(["type": .string(withResponse ? "request" : "command")])
        _ = try await call(
            "WriteValue", on: BlueZInterfaces.gattCharacteristic, at: characteristic,
            arguments: [.byteArray(bytes), options], timeout: timeout)
    }

    /// The `GattCharacteristic1.WriteValue` calls with `type` = `command` to `characteristic`, one per packet.
    public func writeCommands(to characteristic: BlueZPath) throws(BlueZError) -> BlueZWriteCommands {
        do {
            let call = DBusPacketCall(
                destination: try Self.serviceName(), path: characteristic.objectPath,
                interface: try InterfaceName(BlueZInterfaces.gattCharacteristic), member: try MemberName("WriteValue"),
                trailingArguments: [.stringVariantDictionary(["type": .string("command")])])
            return BlueZWriteCommands(bus: bus, call: call, timeout: callTimeout)
        } catch {
            throw BlueZError(error)
        }
    }

    /// The name every call carries, validated by libdbus once instead of for each call (nil only if the constant were
    /// not a valid name: ``known(_:_:)`` then validates again and throws why).
    private enum ValidatedNames {
        static let service = try? BusName(BlueZInterfaces.service)
    }

    /// `cached`, or `text` validated as a name of its kind.
    private static func known<Kind>(_ cached: DBusName<Kind>?, _ text: String) throws(DBusError) -> DBusName<Kind> {
        if let cached { return cached }
        return try DBusName<Kind>(text)
    }

    /// bluetoothd's bus name, `org.bluez`.
    static func serviceName() throws(DBusError) -> BusName { try known(ValidatedNames.service, BlueZInterfaces.service) }

    /// `GattCharacteristic1.StartNotify`: values then arrive as `PropertiesChanged` of `Value`. `timeout`
    /// defaults to ``callTimeout``; a subscription that may make bluetoothd pair first needs longer.
    public func startNotify(characteristic: BlueZPath, timeout: Duration? = nil) async throws(BlueZError) {
        _ = try await call("StartNotify", on: BlueZInterfaces.gattCharacteristic, at: characteristic, timeout: timeout)
    }

    /// `GattCharacteristic1.StopNotify`.
    public func stopNotify(characteristic: BlueZPath) async throws(BlueZError) {
        _ = try await call("StopNotify", on: BlueZInterfaces.gattCharacteristic, at: characteristic)
    }

    /// `GattCharacteristic1.AcquireWrite`: a SOCK_SEQPACKET descriptor for writes without response, and the MTU.
    public func acquireWrite(characteristic: BlueZPath) async throws(BlueZError) -> (BlueZSocket, mtu: Int) {
        try await acquire("AcquireWrite", characteristic: characteristic)
    }

    /// `GattCharacteristic1.AcquireNotify`: a SOCK_SEQPACKET descriptor carrying one notification per packet, and the MTU.
    public func acquireNotify(characteristic: BlueZPath) async throws(BlueZError) -> (BlueZSocket, mtu: Int) {
        try await acquire("AcquireNotify", characteristic: characteristic)
    }

    private func acquire(_ member: String, characteristic: BlueZPath) async throws(BlueZError)
        -> (BlueZSocket, mtu: Int)
    {
        let reply = try await call(
            member, on: BlueZInterfaces.gattCharacteristic, at: characteristic,
            arguments: [.stringVariantDictionary([:])])
        guard reply.count == 2, let descriptor = reply[0].fileDescriptorValue, let mtu = reply[1].integerValue else {
            for value in reply { value.fileDescriptorValue?.close() }
            throw BlueZError.unexpectedReply("\(member) returned \"\(DBusValue.signature(of: reply))\", not \"hq\"")
        }
        return (BlueZSocket(descriptor), Int(mtu))
    }
}
