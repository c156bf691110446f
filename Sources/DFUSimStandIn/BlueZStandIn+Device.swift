import DBus
import DFUCore
import DFUSimulator
import IOLoop

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
            // BlueZ 5.66 `src/device.c` `device_properties` in order, without the experimental
            // AdvertisingFlags/AdvertisingData; those whose `exists` rule fails for an nRF5 heard over LE
            // (Class, Appearance, Icon, Modalias, ManufacturerData, TxPower, WakeAllowed) are declared
            // for introspection and left out of GetAll, as gdbus does.
            properties: [
                DBusProperty(try member("Address"), value: .string(object.address.description)),
                DBusProperty(try member("AddressType"), value: .string(randomStatic ? "random" : "public")),
                DBusProperty(try member("Name"), value: .string(firmware.advertisedName)),
                DBusProperty(
                    try member("Alias"), value: .string(firmware.advertisedName), access: .readWrite, onSet: accept),
                DBusProperty(try member("Class"), signature: "u"),
                DBusProperty(try member("Appearance"), signature: "q"),
                DBusProperty(try member("Icon"), signature: "s"),
                DBusProperty(try member("Paired"), value: .boolean(false)),
            ] + (configuration.host.version.exportsBonded ? [DBusProperty(try member("Bonded"), value: .boolean(false))] : []) + [
                DBusProperty(try member("Trusted"), value: .boolean(false), access: .readWrite, onSet: accept),
                DBusProperty(try member("Blocked"), value: .boolean(false), access: .readWrite, onSet: accept),
                DBusProperty(try member("LegacyPairing"), value: .boolean(false)),
                DBusProperty(try member("RSSI"), value: .int16(radio.spec.rssi)),
                DBusProperty(try member("Connected"), value: .boolean(false)),
                DBusProperty(try member("UUIDs"), value: .stringArray(object.uuids)),
                DBusProperty(try member("Modalias"), signature: "s"),
                DBusProperty(try member("Adapter"), value: .objectPath(adapterPath)),
                DBusProperty(try member("ManufacturerData"), signature: "a{qv}"),
                DBusProperty(try member("ServiceData"), signature: "a{sv}"),
                DBusProperty(try member("TxPower"), signature: "n"),
                DBusProperty(try member("ServicesResolved"), value: .boolean(false)),
                DBusProperty(try member("WakeAllowed"), signature: "b"),
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
        radios.indices.first {
            radios[$0].address == address && !radios[$0].isConnected && !radios[$0].isPoweredOff && radios[$0].firmware.isAdvertising
        }
    }

    func connect(_ message: DBusMessage) async throws -> [DBusValue] {
        let path = try object(for: message).path
        // Device1.Connect makes the device permanent before it tries (`src/device.c` `dev_connect`).
        if powered, devices[path]?.connected == false { makePermanent(path) }
        try await connect(path: path)
        return []
    }

    /// The device no longer expires (`btd_device_set_temporary(dev, false)`).
    func makePermanent(_ path: ObjectPath) {
        devices[path]?.temporary = false
        devices[path]?.expiry?.cancel()
        devices[path]?.expiry = nil
    }

    /// Brings the link up: Connected, the GATT objects, then ServicesResolved shortly after.
    func connect(path: ObjectPath) async throws {
        guard powered else { throw notReady }
        guard var object = devices[path] else { throw BlueZNames.error("DoesNotExist", "Does Not Exist") }
        if object.connected { return }
        // A Connect while one is pending: bluetoothd 5.66's LE `dev_connect` has no check of its own, so
        // `device_connect_le` finds its connection attempt under way (`att_io`) and returns -EALREADY, which
        // goes back as `btd_error_failed(strerror(EALREADY))` (seen from the real 5.66 in the VM suite).
        guard !object.connecting else { throw BlueZNames.error("Failed", "Operation already in progress") }
        guard let index = radioAdvertising(at: object.address) else {
            object.connecting = true
            devices[path] = object
            await pause(configuration.link.connectTimeout)
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
            object.connectCancelled = false
            devices[path] = object
            await pause(delay)
            let cancelled = devices[path]?.connectCancelled ?? true
            devices[path]?.connecting = false
            devices[path]?.connectCancelled = false
            guard !cancelled, let current = devices[path], !current.connected else {
                throw BlueZNames.error("Failed", "le-connection-abort-by-local")
            }
            object = current
        }
        let generation = radios[index].connect()
        observed.links.append(radios[index].address)
        radios[index].isBonded = object.paired && radios[index].spec.pairing.admits(authenticated: object.authenticated)
        object.expiry?.cancel()
        object.expiry = nil
        object.connected = true
        object.radio = index
        object.generation = generation
        object.servicesResolved = false
        devices[path] = object
        try connection.setProperty(member("Connected"), to: .boolean(true), interface: names.device, at: path)
        enqueue(.resolve(device: path, generation: generation))
    }

    /// The end of service discovery on a new link: the primary services found are laid against the
    /// cached GATT objects (matching ones kept, changed ones removed, new ones exported), StartNotify
    /// sessions kept from before are registered again, then UUIDs and ServicesResolved change
    /// (BlueZ 5.66 `src/device.c` `gatt_client_ready_cb`, `src/gatt-client.c` `btd_gatt_client_ready`,
    /// `btd_gatt_client_connected`).
    func resolveServices(_ path: ObjectPath, generation: Int) {
        guard var object = devices[path], object.generation == generation, object.connected,
            let radio = object.radio
        else { return }
        let previousUUIDs = object.uuids
        do {
            let fresh = try GATTTable(services: radios[radio].firmware.services, device: path)
            // A bootloader that indicates Service Changed covers its DFU service to 0xFFFF with it, so
            // bluetoothd discovers that range again: the bootloader with bonds does so to the bonded
            // host (SDK 15–17 `nrf_dfu_ble.c` `service_changed_send`, `sd_ble_gatts_service_changed`),
            // any device with `service_changed=yes` always.
            let firmware = radios[radio].firmware
            let bondedBootloader =
                (firmware as? SimulatedSecureBootloader)?.configuration.requiresBonds == true && object.paired
            let keepingMatches = !radios[radio].spec.indicatesServiceChanged && !bondedBootloader
            let (table, removed, added) =
                object.gatt?.reconciled(with: fresh, keepingMatches: keepingMatches)
                ?? (fresh, [], fresh.pathsInOrder)
            for gattPath in removed {
                if let characteristic = object.gatt?.characteristics[gattPath] {
                    characteristic.notifyChannel?.close()
                    characteristic.writeChannel?.close()
                }
                try? connection.unexport(at: gattPath)
            }
            object.gatt = table
            devices[path] = object
            if configuration.faults.servicesResolvedFirst {
                try? connection.setProperty(member("ServicesResolved"), to: .boolean(true), interface: names.device, at: path)
            }
            for gattPath in added {
                try connection.export(
                    try gattInterfaces(at: gattPath, table: table, device: path).map(Self.asBluetoothd), at: gattPath)
            }
        } catch {
            return
        }
        for characteristic in table(of: path) where !characteristic.notifySenders.isEmpty {
            radios[radio].setSubscribed(characteristic.uuid, true)
        }
        object.servicesResolved = true
        // A resolved GATT database makes the device permanent (`register_gatt_services`).
        object.temporary = false
        devices[path] = object
        publishUUIDs(of: path, previous: previousUUIDs)
        if !configuration.faults.servicesResolvedFirst {
            try? connection.setProperty(member("ServicesResolved"), to: .boolean(true), interface: names.device, at: path)
        }
    }

    private func table(of path: ObjectPath) -> [GATTTable.Characteristic] {
        guard let table = devices[path]?.gatt else { return [] }
        return table.characteristics.keys.sorted().compactMap { table.characteristics[$0] }
    }

    /// Emits Device1.UUIDs when it changed.
    func publishUUIDs(of path: ObjectPath, previous: [String]) {
        guard let object = devices[path], object.uuids != previous else { return }
        try? connection.setProperty(member("UUIDs"), to: .stringArray(object.uuids), interface: names.device, at: path)
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
        observed.pairCalls += 1
        guard devices[path]?.paired != true else { throw BlueZNames.error("AlreadyExists", "Already Exists") }
        if devices[path]?.connected != true {
            do {
                try await connect(path: path)
            } catch {
                throw BlueZNames.error("ConnectionAttemptFailed", "Page Timeout")
            }
        }
        // A Secure DFU bootloader answers every pairing request "pairing not supported" (SDK 15–17
        // `nrf_dfu_ble.c` `ble_evt_handler`, BLE_GAP_EVT_SEC_PARAMS_REQUEST); the kernel reports a
        // failed SMP pairing as an authentication failure, which bluetoothd turns into this error
        // (`src/device.c` `new_authentication_return`).
        guard var object = devices[path], object.connected, let index = object.radio,
            !configuration.faults.pairingFails, !(radios[index].firmware is SimulatedSecureBootloader)
        else {
            throw BlueZNames.error("AuthenticationFailed", "Authentication Failed")
        }
        if radios[index].spec.kind.isSMP {
            // An SMP device pairs by the method its and the agent's IO capabilities give, asking the caller's
            // agent (or the default one) for the user's step.
            let generation = object.generation
            let method = try await authenticate(path, radio: index, caller: message.sender?.rawValue, bonding: true)
            if let current = devices[path]?.radio, radios[current].spec.pairing.dropsWeakPairing,
                !radios[current].spec.pairing.admits(authenticated: method.isAuthenticated)
            {
                // A device that ends the link rather than take keys too weak for it (``DevicePairing``).
                tearDown(path, reboot: nil, announce: true)
            }
            guard devices[path]?.generation == generation, devices[path]?.connected == true else {
                // The link went during the pairing (`MGMT_STATUS_DISCONNECTED`).
                throw BlueZNames.error("AuthenticationCanceled", "Authentication Canceled")
            }
            try bond(path, radio: index, method: method)
            return []
        }
        object.paired = true
        object.expiry?.cancel()
        object.expiry = nil
        devices[path] = object
        radios[index].isBonded = true
        try connection.setProperties(try bondProperties(), interface: names.device, at: path)
        return []
    }

    /// Ends the link of the device at `path`: sockets closed, ServicesResolved then Connected false;
    /// the GATT objects stay unless the cache policy drops them (BlueZ 5.66 `src/device.c`
    /// `device_remove_connection`, `gatt_cache_cleanup`; `src/gatt-client.c`
    /// `btd_gatt_client_disconnected` keeps StartNotify sessions for the next link). The simulated
    /// device reboots into `reboot` when given, and is reported again if a discovery is running;
    /// TemporaryTimeout starts.
    func tearDown(_ path: ObjectPath, reboot: SimulatedBootTarget?, announce: Bool) {
        guard var object = devices[path], object.connected else { return }
        let previousUUIDs = object.uuids
        if var table = object.gatt {
            for (characteristicPath, var characteristic) in table.characteristics {
                characteristic.notifyChannel?.close()
                characteristic.writeChannel?.close()
                var changed: [MemberName: DBusValue] = [:]
                if characteristic.writeChannel != nil, let name = try? member("WriteAcquired") {
                    changed[name] = .boolean(false)
                }
                if characteristic.notifyChannel != nil, let name = try? member("NotifyAcquired") {
                    if characteristic.properties.contains(.notify) {
                        if let late = configuration.faults.lateNotifyRelease {
                            releaseNotifyLate(characteristicPath, after: late)
                        } else {
                            changed[name] = .boolean(false)
                        }
                    }
                    if characteristic.notifySenders.isEmpty, let notifying = try? member("Notifying") {
                        changed[notifying] = .boolean(false)
                    }
                }
                characteristic.notifyChannel = nil
                characteristic.writeChannel = nil
                table.characteristics[characteristicPath] = characteristic
                if !changed.isEmpty {
                    try? connection.setProperties(changed, interface: names.gattCharacteristic, at: characteristicPath)
                }
            }
            object.gatt = table
        }
        try? connection.setProperty(member("ServicesResolved"), to: .boolean(false), interface: names.device, at: path)
        if let table = object.gatt, !configuration.cache.keeps(paired: object.paired) {
            for gattPath in table.pathsInOrder.reversed() {
                try? connection.unexport(at: gattPath)
            }
            object.gatt = nil
        }
        if let index = object.radio {
            radios[index].drop(reboot: reboot)
        }
        object.connected = false
        object.servicesResolved = false
        object.radio = nil
        object.generation += 1_000_000
        object.advertisedUUIDs = []
        devices[path] = object
        publishUUIDs(of: path, previous: previousUUIDs)
        try? connection.setProperty(member("Connected"), to: .boolean(false), interface: names.device, at: path)
        scheduleExpiry(path)
        if announce, !discoverySessions.isEmpty {
            discoveryGeneration += 1
            enqueue(.announce(generation: discoveryGeneration))
        }
    }

    /// `--fault late-notify-release-ms`: the characteristic's `NotifyAcquired` turns false `delay` after the link went
    /// down, as a bluetoothd that handles the descriptor's hang-up late (`src/gatt-client.c` `sock_hup` →
    /// `destroy_sock` emits it) would say.
    private func releaseNotifyLate(_ characteristic: ObjectPath, after delay: Duration) {
        let loop = connection.loop
        Task(executorPreference: loop) { [weak self] in
            await loop.sleep(until: .now + delay)
            await self?.announceNotifyReleased(characteristic)
        }
    }

    private func announceNotifyReleased(_ characteristic: ObjectPath) {
        guard let name = try? member("NotifyAcquired") else { return }
        try? connection.setProperty(name, to: .boolean(false), interface: names.gattCharacteristic, at: characteristic)
    }

    // MARK: - TemporaryTimeout

    /// Starts (again) the device's TemporaryTimeout: a temporary device (only heard: never connected
    /// through Device1.Connect nor resolved) that is not connected goes
    /// away that long after it was last seen (BlueZ 5.66 `src/device.c` `device_update_last_seen`,
    /// `set_temporary_timer`, `device_disappeared`).
    func scheduleExpiry(_ path: ObjectPath) {
        guard var object = devices[path] else { return }
        object.expiry?.cancel()
        object.expiry = nil
        let timeout = configuration.host.temporaryTimeout
        if object.temporary, !object.connected, !object.paired, timeout > .zero {
            object.expiry = Task(executorPreference: connection.loop) { [weak self, loop = connection.loop] in
                await loop.sleep(until: .now + timeout)
                guard !Task.isCancelled else { return }
                await self?.expire(path)
            }
        }
        devices[path] = object
    }

    /// TemporaryTimeout ran out: the device object goes, with its GATT objects.
    /// While a discovery hears the device, every advertisement starts the timeout again.
    private func expire(_ path: ObjectPath) {
        guard let object = devices[path], object.temporary, !object.connected, !object.paired else { return }
        if isHeardNow(object.address) {
            scheduleExpiry(path)
            return
        }
        removeObjects(of: path)
    }

    /// Unexports a device and its GATT objects and forgets it.
    func removeObjects(of path: ObjectPath) {
        guard let object = devices[path] else { return }
        object.expiry?.cancel()
        if let table = object.gatt {
            for gattPath in table.pathsInOrder.reversed() {
                try? connection.unexport(at: gattPath)
            }
        }
        devices[path] = nil
        try? connection.unexport(at: path)
    }
}
