import DBus
import DFUCore
import DFUSimulator

extension BlueZStandIn {
    func deviceInterface(for object: DeviceObject, radio: RadioDevice) throws(DBusError) -> DBusInterface {
        let accept: DBusProperty.SetHandler = { _ in }
        let firmware = radio.firmware
        let randomStatic = (object.address.bytes.first ?? 0) & 0xC0 == 0xC0
        return DBusInterface(
            names.device,
            methods: [
                DBusMethod(
                    try member("Disconnect"),
                    handler: handler { standIn, message in try await standIn.disconnect(message) }),
                DBusMethod(
                    try member("Connect"), runsConcurrently: true,
                    handler: handler { standIn, message in try await standIn.connect(message) }),
                DBusMethod(
                    try member("ConnectProfile"), inputs: [DBusArgument("UUID", "s")],
                    handler: { _ in throw BlueZNames.error("NotAvailable", "Operation currently not available") }),
                DBusMethod(
                    try member("DisconnectProfile"), inputs: [DBusArgument("UUID", "s")],
                    handler: { _ in throw BlueZNames.error("NotSupported", "Operation is not supported") }),
                DBusMethod(
                    try member("Pair"), runsConcurrently: true,
                    handler: handler { standIn, message in try await standIn.pair(message) }),
                DBusMethod(
                    try member("CancelPairing"),
                    handler: { _ in throw BlueZNames.error("DoesNotExist", "Does Not Exist") }),
            ],
            properties: [
                DBusProperty(try member("Address"), value: .string(object.address.description)),
                DBusProperty(try member("AddressType"), value: .string(randomStatic ? "random" : "public")),
                DBusProperty(try member("Name"), value: .string(firmware.advertisedName)),
                DBusProperty(
                    try member("Alias"), value: .string(firmware.advertisedName), access: .readWrite, onSet: accept),
                DBusProperty(try member("Paired"), value: .boolean(false)),
                DBusProperty(try member("Bonded"), value: .boolean(false)),
                DBusProperty(try member("Trusted"), value: .boolean(false), access: .readWrite, onSet: accept),
                DBusProperty(try member("Blocked"), value: .boolean(false), access: .readWrite, onSet: accept),
                DBusProperty(try member("LegacyPairing"), value: .boolean(false)),
                DBusProperty(try member("RSSI"), value: .int16(radio.spec.rssi)),
                DBusProperty(try member("Connected"), value: .boolean(false)),
                DBusProperty(try member("UUIDs"), value: .stringArray(object.uuids)),
                DBusProperty(try member("Adapter"), value: .objectPath(adapterPath)),
                DBusProperty(try member("ServiceData"), signature: "a{sv}"),
                DBusProperty(try member("ServicesResolved"), value: .boolean(false)),
                DBusProperty(try member("AdvertisingFlags"), value: .byteArray([0x06])),
            ])
    }

    private func object(for message: DBusMessage) throws -> DeviceObject {
        guard let path = message.path, let object = devices[path] else {
            throw BlueZNames.error("DoesNotExist", "Does Not Exist")
        }
        return object
    }

    /// The radio device advertising at `address` now and free to connect.
    private func radioAdvertising(at address: DFUDeviceAddress) -> Int? {
        radios.indices.first { radios[$0].address == address && !radios[$0].isConnected }
    }

    func connect(_ message: DBusMessage) async throws -> [DBusValue] {
        try await connect(path: try object(for: message).path)
        return []
    }

    /// Brings the link up: Connected, the GATT objects, then ServicesResolved shortly after.
    func connect(path: ObjectPath) async throws {
        guard powered else { throw notReady }
        guard var object = devices[path] else { throw BlueZNames.error("DoesNotExist", "Does Not Exist") }
        if object.connected { return }
        guard !object.connecting else { throw BlueZNames.error("InProgress", "In Progress") }
        guard let index = radioAdvertising(at: object.address) else {
            object.connecting = true
            devices[path] = object
            try? await Task.sleep(for: configuration.link.connectTimeout)
            devices[path]?.connecting = false
            throw BlueZNames.error("Failed", "le-connection-abort-by-local")
        }
        if radios[index].consumeConnectionFailure() {
            throw BlueZNames.error("Failed", "le-connection-abort-by-local")
        }
        let delay = radios[index].spec.connectDelay
        if delay > .zero {
            // A slow answer: the link comes up after `delay`, unless Disconnect cancels the attempt.
            object.connecting = true
            devices[path] = object
            try? await Task.sleep(for: delay)
            let cancelled = devices[path]?.connectCancelled ?? true
            devices[path]?.connecting = false
            devices[path]?.connectCancelled = false
            guard !cancelled, let current = devices[path], !current.connected else {
                throw BlueZNames.error("Failed", "le-connection-abort-by-local")
            }
            object = current
        }
        let generation = radios[index].connect()
        radios[index].isBonded = object.paired
        let real = radios[index].firmware.services
        let cacheApplies = configuration.faults.cachesServices && !radios[index].spec.indicatesServiceChanged
        let shown = cacheApplies ? (object.cachedServices ?? real) : real
        object.cachedServices = shown
        object.connected = true
        object.radio = index
        object.generation = generation
        object.servicesResolved = false
        let table = try GATTTable(services: shown, device: path)
        object.gatt = table
        object.uuids = Array(Set(object.uuids + table.serviceUUIDs)).sorted()
        devices[path] = object
        try connection.setProperty(member("Connected"), to: .boolean(true), interface: names.device, at: path)
        for gattPath in table.pathsInOrder {
            try connection.export(try gattInterfaces(at: gattPath, table: table, device: path), at: gattPath)
        }
        try connection.setProperty(member("UUIDs"), to: .stringArray(object.uuids), interface: names.device, at: path)
        enqueue(.resolve(device: path, generation: generation))
    }

    func disconnect(_ message: DBusMessage) throws -> [DBusValue] {
        let object = try object(for: message)
        // Like bluetoothd, Disconnect during a pending Connect cancels it.
        if object.connecting { devices[object.path]?.connectCancelled = true }
        if object.connected { tearDown(object.path, reboot: nil, announce: true) }
        return []
    }

    func pair(_ message: DBusMessage) async throws -> [DBusValue] {
        let path = try object(for: message).path
        guard devices[path]?.paired != true else { throw BlueZNames.error("AlreadyExists", "Already Exists") }
        if devices[path]?.connected != true {
            do {
                try await connect(path: path)
            } catch {
                throw BlueZNames.error("ConnectionAttemptFailed", "Page Timeout")
            }
        }
        guard var object = devices[path], object.connected, let index = object.radio,
            !configuration.faults.pairingFails
        else {
            throw BlueZNames.error("AuthenticationFailed", "Authentication Failed")
        }
        object.paired = true
        devices[path] = object
        radios[index].isBonded = true
        try connection.setProperties(
            [try member("Paired"): .boolean(true), try member("Bonded"): .boolean(true)], interface: names.device,
            at: path)
        return []
    }

    /// Ends the link of the device at `path`: sockets closed, GATT objects removed, ServicesResolved
    /// and Connected false; the simulated device reboots into `reboot` when given, and is reported
    /// again if a discovery is running.
    func tearDown(_ path: ObjectPath, reboot: SimulatedBootTarget?, announce: Bool) {
        guard var object = devices[path], object.connected else { return }
        if let table = object.gatt {
            for characteristic in table.characteristics.values {
                characteristic.notifyChannel?.close()
                characteristic.writeChannel?.close()
            }
            try? connection.setProperty(
                member("ServicesResolved"), to: .boolean(false), interface: names.device, at: path)
            for gattPath in table.pathsInOrder.reversed() {
                try? connection.unexport(at: gattPath)
            }
        }
        if let index = object.radio {
            radios[index].drop(reboot: reboot)
        }
        object.connected = false
        object.servicesResolved = false
        object.gatt = nil
        object.radio = nil
        object.generation += 1_000_000
        devices[path] = object
        try? connection.setProperty(member("Connected"), to: .boolean(false), interface: names.device, at: path)
        if announce, !discoverySessions.isEmpty {
            discoveryGeneration += 1
            enqueue(.announce(generation: discoveryGeneration))
        }
    }
}
