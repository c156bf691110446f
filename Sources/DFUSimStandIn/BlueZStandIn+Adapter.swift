import BlueZ
import DBus
import DFUCore
import DFUSimulator
import IOLoop

extension BlueZStandIn {
    /// A handler that calls into the actor (the actor must still exist).
    nonisolated func handler(
        _ body: @escaping @Sendable (BlueZStandIn, DBusMessage) async throws -> [DBusValue]
    ) -> DBusMethod.Handler {
        { [weak self] message in
            guard let self else { throw BlueZNames.error("Failed", "The stand-in has stopped") }
            return try await body(self, message)
        }
    }

    // MARK: - /org/bluez

    func rootInterfaces() throws(DBusError) -> [DBusInterface] {
        let agentManager = DBusInterface(
            names.agentManager,
            methods: [
                DBusMethod(
                    try member("RegisterAgent"), inputs: [DBusArgument("agent", "o"), DBusArgument("capability", "s")],
                    handler: handler { standIn, message in try await standIn.registerAgent(message) }),
                DBusMethod(
                    try member("UnregisterAgent"), inputs: [DBusArgument("agent", "o")],
                    handler: handler { standIn, message in try await standIn.unregisterAgent(message) }),
                DBusMethod(
                    try member("RequestDefaultAgent"), inputs: [DBusArgument("agent", "o")],
                    handler: handler { standIn, message in try await standIn.requestDefaultAgent(message) }),
            ])
        let profileManager = DBusInterface(
            names.profileManager,
            methods: [
                DBusMethod(
                    try member("RegisterProfile"),
                    inputs: [
                        DBusArgument("profile", "o"), DBusArgument("UUID", "s"), DBusArgument("options", "a{sv}"),
                    ],
                    handler: { _ in throw BlueZNames.error("NotSupported", "Operation is not supported") }),
                DBusMethod(
                    try member("UnregisterProfile"), inputs: [DBusArgument("profile", "o")],
                    handler: { _ in throw BlueZNames.error("DoesNotExist", "Does Not Exist") }),
            ])
        return [agentManager, profileManager]
    }

    /// RegisterAgent as BlueZ 5.66 `src/agent.c` `register_agent`: one agent per client (bus name), its
    /// capability parsed by `parse_io_capability` (empty: KeyboardDisplay).
    func registerAgent(_ message: DBusMessage) throws -> [DBusValue] {
        let sender = message.sender?.rawValue ?? ""
        guard agents[sender] == nil else { throw BlueZNames.error("AlreadyExists", "Already Exists") }
        guard message.arguments.count == 2, let path = message.arguments[0].objectPathValue,
            let text = message.arguments[1].stringValue, let capability = PairingMethod.Capability(agentCapability: text)
        else {
            throw BlueZNames.error("InvalidArguments", "Invalid arguments in method call")
        }
        agents[sender] = RegisteredAgent(path: path, capability: capability)
        // `agent_create`: the first agent becomes the default, later ones queue behind the default ones.
        defaultAgents.append(sender)
        return []
    }

    /// UnregisterAgent (`unregister_agent`): the client's agent, by its path; it stops being a default agent.
    func unregisterAgent(_ message: DBusMessage) throws -> [DBusValue] {
        let sender = message.sender?.rawValue ?? ""
        guard let agent = agents[sender], message.arguments.first?.objectPathValue == agent.path else {
            throw BlueZNames.error("DoesNotExist", "Does Not Exist")
        }
        agents[sender] = nil
        defaultAgents.removeAll { $0 == sender }
        return []
    }

    /// RequestDefaultAgent (`request_default`, `add_default_agent`): the client's agent, by its path, goes to
    /// the head of the default agents; `agent_get(NULL)` takes the head.
    func requestDefaultAgent(_ message: DBusMessage) throws -> [DBusValue] {
        let sender = message.sender?.rawValue ?? ""
        guard let agent = agents[sender], message.arguments.first?.objectPathValue == agent.path else {
            throw BlueZNames.error("DoesNotExist", "Does Not Exist")
        }
        defaultAgents.removeAll { $0 == sender }
        defaultAgents.insert(sender, at: 0)
        return []
    }

    // MARK: - Adapter1

    /// Exports the further adapters: Adapter1 with the properties a client reads to choose one, each method
    /// NotSupported (no simulated device is heard through them).
    func exportOtherAdapters() throws(DBusError) {
        for (index, adapter) in configuration.otherAdapters.enumerated() {
            let refuse: @Sendable (DBusMessage) async throws -> [DBusValue] = { _ in
                throw BlueZNames.error("NotSupported", "Operation is not supported")
            }
            let address = DFUDeviceAddress(bytes: [0x00, 0xAA, 0x01, 0x00, 0x00, UInt8(truncatingIfNeeded: index + 1)])
            let interface = DBusInterface(
                names.adapter,
                methods: try ["StartDiscovery", "StopDiscovery", "SetDiscoveryFilter", "RemoveDevice"].map {
                    (name) throws(DBusError) in DBusMethod(try member(name), handler: refuse)
                },
                properties: [
                    DBusProperty(try member("Address"), value: .string(address?.description ?? "00:00:00:00:00:00")),
                    DBusProperty(try member("AddressType"), value: .string("public")),
                    DBusProperty(try member("Name"), value: .string(adapter.name)),
                    DBusProperty(try member("Alias"), value: .string(adapter.name)),
                    DBusProperty(try member("Powered"), value: .boolean(adapter.powered)),
                    DBusProperty(try member("Discovering"), value: .boolean(false)),
                ])
            try connection.export([Self.asBluetoothd(interface)], at: try names.root.appending(adapter.name))
        }
    }

    func adapterInterface() throws(DBusError) -> DBusInterface {
        let alias = configuration.adapterAlias
        let accept: DBusProperty.SetHandler = { _ in }
        let powerHandler: DBusProperty.SetHandler = { [weak self] value in
            guard let on = value.boolValue else { throw BlueZNames.error("InvalidArguments", "Invalid arguments") }
            guard let self else { return }
            Task(executorPreference: self.connection.loop) { await self.setPowered(on) }
        }
        return DBusInterface(
            names.adapter,
            methods: [
                DBusMethod(
                    try member("StartDiscovery"),
                    handler: handler { standIn, message in try await standIn.startDiscovery(message) }),
                DBusMethod(
                    try member("SetDiscoveryFilter"), inputs: [DBusArgument("properties", "a{sv}")],
                    handler: handler { standIn, message in try await standIn.setDiscoveryFilter(message) }),
                DBusMethod(
                    try member("StopDiscovery"),
                    handler: handler { standIn, message in try await standIn.stopDiscovery(message) }),
                DBusMethod(
                    try member("RemoveDevice"), inputs: [DBusArgument("device", "o")],
                    handler: handler { standIn, message in try await standIn.removeDevice(message) }),
                DBusMethod(
                    try member("GetDiscoveryFilters"), outputs: [DBusArgument("filters", "as")],
                    handler: { _ in [.stringArray(DiscoveryFilter.keys)] }),
            ],
            properties: [
                DBusProperty(
                    try member("Address"),
                    value: .string(configuration.adapterAddress?.description ?? "00:00:00:00:00:00")),
                DBusProperty(try member("AddressType"), value: .string("public")),
                DBusProperty(try member("Name"), value: .string(alias)),
                DBusProperty(try member("Alias"), value: .string(alias), access: .readWrite, onSet: accept),
                DBusProperty(try member("Class"), value: .uint32(0)),
                DBusProperty(try member("Powered"), value: .boolean(powered), access: .readWrite, onSet: powerHandler),
                DBusProperty(try member("Discoverable"), value: .boolean(false), access: .readWrite, onSet: accept),
                DBusProperty(try member("DiscoverableTimeout"), value: .uint32(180), access: .readWrite, onSet: accept),
                DBusProperty(try member("Pairable"), value: .boolean(true), access: .readWrite, onSet: accept),
                DBusProperty(try member("PairableTimeout"), value: .uint32(0), access: .readWrite, onSet: accept),
                DBusProperty(try member("Discovering"), value: .boolean(false)),
                DBusProperty(
                    try member("UUIDs"),
                    value: .stringArray([
                        "00001800-0000-1000-8000-00805f9b34fb", "00001801-0000-1000-8000-00805f9b34fb",
                        "0000180a-0000-1000-8000-00805f9b34fb",
                    ])),
                // The Linux Foundation's USB vendor 1D6B, product 0246 (BlueZ), and the version claimed.
                DBusProperty(
                    try member("Modalias"),
                    value: .string(configuration.host.version.release.modalias)),
                DBusProperty(try member("Roles"), value: .stringArray(["central", "peripheral"])),
                // Listed by introspection, absent from GetAll: it exists only when bluetoothd runs with -E.
                DBusProperty(try member("ExperimentalFeatures"), signature: "as"),
            ])
    }

    func setPowered(_ on: Bool) {
        guard on != powered else { return }
        powered = on
        if !on {
            for path in devices.keys.sorted() where devices[path]?.connected == true {
                tearDown(path, reboot: nil, announce: false)
            }
            if !discoverySessions.isEmpty {
                discoverySessions = [:]
                discoveryEnded()
            }
        }
    }

    var notReady: DBusError { BlueZNames.error("NotReady", "Resource Not Ready") }

    // MARK: - Discovery

    func setDiscoveryFilter(_ message: DBusMessage) throws -> [DBusValue] {
        guard powered else { throw notReady }
        guard let argument = message.arguments.first else {
            throw BlueZNames.error("InvalidArguments", "Invalid arguments in method call")
        }
        let filter = try DiscoveryFilter(argument)
        let sender = message.sender?.rawValue ?? ""
        pendingFilters[sender] = filter
        if discoverySessions[sender] != nil { discoverySessions[sender] = filter }
        return []
    }

    func startDiscovery(_ message: DBusMessage) throws -> [DBusValue] {
        guard powered else { throw notReady }
        let sender = message.sender?.rawValue ?? ""
        guard discoverySessions[sender] == nil else {
            throw BlueZNames.error("InProgress", "Operation already in progress")
        }
        let wasIdle = discoverySessions.isEmpty
        discoverySessions[sender] = pendingFilters[sender] ?? DiscoveryFilter()
        if wasIdle {
            try? connection.setProperty(
                member("Discovering"), to: .boolean(true), interface: names.adapter, at: adapterPath)
        }
        discoveryGeneration += 1
        enqueue(.announce(generation: discoveryGeneration))
        return []
    }

    func stopDiscovery(_ message: DBusMessage) throws -> [DBusValue] {
        guard powered else { throw notReady }
        let sender = message.sender?.rawValue ?? ""
        guard discoverySessions.removeValue(forKey: sender) != nil else {
            throw BlueZNames.error("Failed", "No discovery started")
        }
        if discoverySessions.isEmpty { discoveryEnded() }
        return []
    }

    /// Discovering false; RSSI is invalidated on every device, as bluetoothd does.
    func discoveryEnded() {
        discoveryGeneration += 1
        try? connection.setProperty(
            member("Discovering"), to: .boolean(false), interface: names.adapter, at: adapterPath)
        for path in devices.keys.sorted() {
            try? connection.removeProperties([member("RSSI")], interface: names.device, at: path)
        }
    }

    /// Reports every device advertising now that some session's filter admits.
    func announceDevicesInRange() {
        guard powered else { return }
        for index in radios.indices {
            guard let address = admittedAddress(of: index), let path = devicePath(for: address) else { continue }
            advertise(radio: index, at: path)
        }
    }

    /// Whether a device advertising now lists a UUID some discovery session's filter names (`is_filter_match`'s
    /// service check, which 5.87 reaches only to crash).
    func matchesAFiltersUUIDs() -> Bool {
        guard powered else { return false }
        return radios.contains { radio in
            guard !radio.isConnected, !radio.isPoweredOff, radio.firmware.isAdvertising else { return false }
            let advertised = Set(radio.firmware.advertisedServiceUUIDs.map { $0.lowercased() })
            return discoverySessions.values.contains { session in session.uuids.contains { advertised.contains($0) } }
        }
    }

    /// The address of radio device `index` when it advertises now and a discovery session admits it.
    private func admittedAddress(of index: Int) -> DFUDeviceAddress? {
        let radio = radios[index]
        guard powered, !radio.isConnected, !radio.isPoweredOff, radio.firmware.isAdvertising else { return nil }
        let firmware = radio.firmware
        let address = radio.address
        let admitted = discoverySessions.values.contains {
            $0.admits(
                address: address.description, name: firmware.advertisedName,
                serviceUUIDs: firmware.advertisedServiceUUIDs, rssi: radio.spec.rssi)
        }
        return admitted ? address : nil
    }

    /// Whether a running discovery hears a device advertising at `address` now.
    func isHeardNow(_ address: DFUDeviceAddress) -> Bool {
        radios.indices.contains { admittedAddress(of: $0) == address }
    }

    /// Creates or refreshes the Device1 object for an advertisement from `radio`: only what changed
    /// is signalled (BlueZ 5.66 `src/device.c` `btd_device_device_set_name`, `device_add_eir_uuids`,
    /// which ignores advertised UUIDs once services were resolved); TemporaryTimeout starts again.
    private func advertise(radio index: Int, at path: ObjectPath) {
        let radio = radios[index]
        let firmware = radio.firmware
        let advertisedUUIDs = firmware.advertisedServiceUUIDs.map { $0.lowercased() }
        if var object = devices[path] {
            let previousUUIDs = object.uuids
            object.advertisedUUIDs = Array(Set(object.advertisedUUIDs + advertisedUUIDs)).sorted()
            devices[path] = object
            var changed: [MemberName: DBusValue] = [:]
            let values: [(String, DBusValue)] = [
                ("Name", .string(firmware.advertisedName)), ("Alias", .string(firmware.advertisedName)),
                ("RSSI", .int16(radio.spec.rssi)),
            ]
            for (name, value) in values {
                guard let key = try? member(name),
                    connection.exportedProperty(key, interface: names.device, at: path) != value
                else { continue }
                changed[key] = value
            }
            if !changed.isEmpty { try? connection.setProperties(changed, interface: names.device, at: path) }
            publishUUIDs(of: path, previous: previousUUIDs)
            scheduleExpiry(path)
            return
        }
        let object = DeviceObject(path: path, address: radio.address, advertisedUUIDs: advertisedUUIDs.sorted())
        devices[path] = object
        let late = configuration.faults.lateAnnouncement
        do {
            try connection.export(
                [try deviceInterface(for: object, radio: radio)].map(Self.asBluetoothd), at: path, announced: late == nil)
        } catch {
            devices[path] = nil
            return
        }
        if let late { announceLate(path, after: late) }
        scheduleExpiry(path)
    }

    /// `--fault late-announcement-ms`: the device's InterfacesAdded, `delay` after it was exported (its properties as
    /// they are then), unless it went meanwhile.
    private func announceLate(_ path: ObjectPath, after delay: Duration) {
        let loop = connection.loop
        Task(executorPreference: loop) { [weak self, names] in
            await loop.sleep(until: .now + delay)
            await self?.announce(path, interface: names.device)
        }
    }

    private func announce(_ path: ObjectPath, interface: InterfaceName) {
        guard devices[path] != nil else { return }
        try? connection.announceInterfaces([interface], at: path)
    }

    func removeDevice(_ message: DBusMessage) throws -> [DBusValue] {
        guard let path = message.arguments.first?.objectPathValue, devices[path] != nil else {
            throw BlueZNames.error("DoesNotExist", "Does Not Exist")
        }
        if devices[path]?.connected == true { tearDown(path, reboot: nil, announce: true) }
        // The device goes with its bond and its GATT database, objects included
        // (`src/adapter.c` `remove_device`, `btd_adapter_remove_device`).
        removeObjects(of: path)
        return []
    }
}
