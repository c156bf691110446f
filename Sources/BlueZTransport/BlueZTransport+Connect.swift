import BlueZ

public import DFUCore

extension BlueZTransport {
    /// Scans for the selected device, connects with retries, waits for ServicesResolved, maps the DFU
    /// characteristics, pairs when buttonless-with-bonds needs it.
    public func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        await disconnect()
        guard !isClosed else { throw .failed("the BlueZ transport is closed") }
        // bluetoothd restarting (a package upgrade, a crash) is back within a second or two.
        if isBlueZGone || isAdapterGone { await waitForBlueZ() }
        guard !isBlueZGone else { throw .hostUnavailable(BlueZError.notRunning.description) }
        // Without this, the removed adapter's UnknownObject errors would read as a lost link.
        guard !isAdapterGone else {
            throw .hostUnavailable(
                BlueZError.adapterNotFound(name: adapter.name, available: []).description + " (it was removed)")
        }
        if parameters.discardCachedServices { await forgetDevices(parameters.selector) }
        // bluetoothd re-discovers the primary services on every connection before ServicesResolved,
        // so a device without DFU services really has none (its cached objects of an earlier firmware
        // were replaced); the runner handles the one case the cache survives (a same-address bootloader
        // whose DFU service has the application's handles) with discardCachedServices.
        let device = try await discover(parameters.selector, within: parameters.scanTimeout)
        return try await connectAndResolve(device, parameters: parameters)
    }

    /// Drops the link (idempotent): closes descriptors, stops notifications, Device1.Disconnect. A cancelled caller
    /// (an interrupted update) still drops it: the calls go from a task of their own, which the cancellation does
    /// not cut short.
    public func disconnect() async {
        guard link != nil else { return }
        if Task.isCancelled {
            await Task(executorPreference: loop) { await self.disconnectLink() }.value
        } else {
            await disconnectLink()
        }
    }

    private func disconnectLink() async {
        guard let link else { return }
        self.link = nil
        // The commands in flight end first (answered, or failed once the link is down).
        for command in link.commandsInFlight { _ = await command.failure() }
        link.commandsInFlight = []
        link.release()
        for path in link.valueWatch.keys { try? await client.stopNotify(characteristic: path) }
        if !link.events.isDown, !isBlueZGone { try? await client.disconnect(device: link.device) }
        link.events.markDown()
    }

    // MARK: Discovery

    /// Removes the devices of the selector's addresses from BlueZ, so no cached GATT database is reused.
    func forgetDevices(_ selector: DFUDeviceSelector) async {
        let addresses = Set(selector.addresses.map(\.description))
        guard !addresses.isEmpty else { return }
        for device in devices.values where addresses.contains(device.address) {
            if device.isConnected { try? await client.disconnect(device: device.path) }
            try? await client.removeDevice(device.path, adapter: adapter.path)
            devices[device.path] = nil
            heard.remove(device.path)
        }
    }

    /// Discovers a device matching `selector`: SetDiscoveryFilter + StartDiscovery, then follows signals.
    /// Devices already connected, or heard in a discovery that is still running, count at once.
    func discover(_ selector: DFUDeviceSelector, within timeout: Duration) async throws(DFUTransportError)
        -> BlueZDevice
    {
        var canonical = selector
        canonical.serviceUUIDs = selector.serviceUUIDs.map(BlueZUUID.canonical)
        heard = Set(devices.values.filter { $0.rssi != nil || $0.isConnected }.map(\.path))
        do {
            try await client.setDiscoveryFilter(adapter: adapter.path, serviceUUIDs: discoveryFilterUUIDs(canonical.serviceUUIDs))
            do {
                try await client.startDiscovery(adapter: adapter.path)
            } catch .inProgress {
                // Another client is already discovering on this adapter: its results reach us too.
            }
        } catch {
            throw Self.transportError(error)
        }
        let heardNow = heard
        let wanted = canonical
        let candidates: @Sendable ([BlueZDevice]) -> [BlueZDevice] = { devices in
            devices.filter { heardNow.contains($0.path) || $0.rssi != nil || $0.isConnected }
        }
        var found = await waitForDevices(within: timeout) { devices in
            let heard = candidates(devices)
            return heard.first { Self.match($0, wanted) == .selected } ?? heard.first { Self.match($0, wanted) == .fallback }
        }
        if let fallback = found, Self.match(fallback, wanted) == .fallback {
            // Only a bootloader at the fallback address so far: the device named may not have been heard
            // yet, and when it is there it is the one to take.
            found = await waitForDevices(within: Self.fallbackGrace) { devices in
                candidates(devices).first { Self.match($0, wanted) == .selected }
            } ?? fallback
        }
        try? await client.stopDiscovery(adapter: adapter.path)
        guard let found else {
            if isBlueZGone { throw .hostUnavailable(BlueZError.notRunning.description) }
            throw .deviceNotFound
        }
        return found
    }

    /// How long discovery goes on listening for the device named once only a bootloader at its fallback
    /// address (address + 1) was heard.
    static let fallbackGrace: Duration = .seconds(2)

    /// How a device matches, nil when it does not: the selector's rules, with a name required when only
    /// a name is given.
    static func match(_ device: BlueZDevice, _ selector: DFUDeviceSelector) -> DFUDeviceSelector.Match? {
        guard let address = DFUDeviceAddress(device.address) else { return nil }
        let name = device.name ?? device.alias.flatMap { DFUDeviceAddress($0.replacing("-", with: ":")) == nil ? $0 : nil }
        if selector.name != nil, selector.addresses.isEmpty, name == nil { return nil }
        return selector.match(address: address, name: name, serviceUUIDs: device.serviceUUIDs)
    }

    static func address(of device: BlueZDevice) throws(DFUTransportError) -> DFUDeviceAddress {
        guard let address = DFUDeviceAddress(device.address) else {
            throw .failed("BlueZ reported the malformed address \(device.address)")
        }
        return address
    }

    // MARK: Connecting

    /// One Connect, then ServicesResolved, characteristics, pairing. Retrying is the engine's
    /// business (`--retries`), so one failed attempt is reported as it is.
    func connectAndResolve(_ device: BlueZDevice, parameters: DFUConnectParameters) async throws(DFUTransportError)
        -> DFUPeer
    {
        let address = try Self.address(of: device)
        let context = LinkContext(device: device.path, loop: loop)
        link = context
        do {
            try await client.connect(device: device.path, timeout: parameters.connectTimeout)
        } catch .inProgress {
            // Another Connect is under way (or done): wait for its outcome like our own.
        } catch {
            link = nil
            if case .doesNotExist = error { throw .disconnected }
            throw Self.transportError(error)
        }
        let path = device.path
        if devices[path]?.isConnected == true { context.sawConnected = true }
        let events = context.events
        let resolved = await waitForDevices(within: parameters.connectTimeout) { devices in
            devices.first { $0.path == path && (($0.servicesResolved && $0.isConnected) || events.isDown) }
        }
        guard let resolved, resolved.isConnected, resolved.servicesResolved, !context.events.isDown else {
            await disconnect()
            throw resolved == nil ? .timedOut : .disconnected
        }
        return try await describe(resolved, address: address, context: context, uuids: parameters.uuids)
    }

    /// Why a device shows no GATT services at all, when its bluetoothd is the cause: before 5.42 bluetoothd exports a
    /// device's GATT objects only with `--experimental` (``BluetoothdRelease/gattClientAPI``); nil otherwise (a
    /// device with no services, or a bluetoothd whose Modalias names no release).
    static func missingGATTClient(serviceCount: Int, release: BluetoothdRelease?) -> String? {
        guard serviceCount == 0, let release, release < .gattClientAPI else { return nil }
        return "bluetoothd \(release) exports a device's GATT services only when it runs with --experimental (its GATT client "
            + "API is experimental before 5.42): start it with -E, or use bluetoothd 5.42 or later"
    }

    /// Maps the device's GATT objects to DFU endpoints and reports what was found.
    func describe(_ device: BlueZDevice, address: DFUDeviceAddress, context: LinkContext, uuids: DFUServiceUUIDs)
        async throws(DFUTransportError) -> DFUPeer
    {
        // One call to bluetoothd first. Its reply comes after every signal bluetoothd had queued (it sends them before
        // any other message: `gdbus/object.c` `g_dbus_send_message` → `g_dbus_flush`, replies and errors alike), and
        // the GATT objects' announcements are in `gatt` before a reply read after them resumes this: so `gatt` then
        // has every object this connection exported, in whichever order ServicesResolved and their InterfacesAdded
        // went (they are queued per object and sent in the order the objects first had one queued). The call reads
        // the link's MTU where the characteristics have one (bluetoothd 5.62 and later; the value a characteristic
        // was announced with is that of the link it was exported on), else whether the device is connected.
        var mtu: Int?
        if let probe = gatt.objects.anyCharacteristic(of: device.path) {
            mtu = try? await client.linkMTU(characteristic: probe.path)
        } else {
            _ = try? await client.isConnected(device: device.path)
        }
        let services = map(device.path, in: gatt.objects, uuids: uuids, into: context)
        if let reason = Self.missingGATTClient(serviceCount: services.count, release: adapter.bluetoothdRelease) {
            await disconnect()
            throw .hostUnavailable(reason)
        }
        if mtu == nil,
            let characteristic = DFUEndpoint.allCases.lazy.compactMap({ context.characteristics[$0] }).first(where: { $0.mtu != nil })
        {
            mtu = try? await client.linkMTU(characteristic: characteristic.path)
        }
        context.mtu = LinkContext.attMTU(mtu ?? 23)
        if mtu == nil, let endpoint = Self.packetEndpoints.first(where: { context.characteristics[$0] != nil }),
            let characteristic = context.characteristics[endpoint]
        {
            try await acquireWriteEarly(characteristic, for: endpoint, in: context)
        }
        var bonded = device.isBonded || device.isPaired
        if context.characteristics[.buttonlessWithBonds] != nil, !bonded {
            do {
                try await pair(context, address: address)
                bonded = true
            } catch {
                await disconnect()
                throw error
            }
        }
        let gap = BlueZUUID.canonical("1800")
        let gatt = BlueZUUID.canonical("1801")
        let serviceCount = services.filter { $0.isPrimary && $0.uuid != gap && $0.uuid != gatt }.count
        return DFUPeer(
            address: address, name: device.name, endpoints: Set(context.characteristics.keys),
            serviceCount: serviceCount, maximumWriteLength: max(context.mtu - 3, 20), isBonded: bonded)
    }

    /// Sets `context`'s characteristics to the device's DFU ones in `objects`; returns the device's services.
    private func map(_ device: BlueZPath, in objects: GATTObjects, uuids: DFUServiceUUIDs, into context: LinkContext)
        -> [BlueZGattService]
    {
        let services = objects.services(of: device)
        context.characteristics = [:]
        for endpoint in DFUEndpoint.allCases {
            let (serviceUUID, characteristicUUID) = uuids.uuids(of: endpoint)
            for service in services where BlueZUUID.same(service.uuid, serviceUUID) {
                if let characteristic = objects.characteristics(of: service.path).first(where: {
                    BlueZUUID.same($0.uuid, characteristicUUID)
                }) {
                    context.characteristics[endpoint] = characteristic
                    break
                }
            }
        }
        return services
    }

    /// The characteristics that carry the firmware, one per protocol.
    static let packetEndpoints: [DFUEndpoint] = [.smp, .securePacket, .legacyPacket]

    /// Without the characteristics' MTU property (bluetoothd before 5.62: Debian 11's 5.55) the write length
    /// would be the default ATT MTU's, 20 bytes: AcquireWrite reports the link's MTU (`src/gatt-client.c`
    /// `create_sock`: `bt_gatt_client_get_mtu`), so the packet characteristic is acquired at once and kept for
    /// the packets. Seen in the VM: through bluetoothd 5.55 a Secure DFU upload went out in 20-byte packets over a
    /// 247-byte ATT MTU. Refused: the packets go through WriteValue with the default length.
    func acquireWriteEarly(_ characteristic: BlueZGattCharacteristic, for endpoint: DFUEndpoint, in context: LinkContext)
        async throws(DFUTransportError)
    {
        guard usesAcquireWrite, characteristic.flags.contains("write-without-response") else { return }
        do {
            let (descriptor, mtu) = try await client.acquireWrite(characteristic: characteristic.path)
            context.writer = PacketWriter(descriptor: descriptor, mtu: LinkContext.attMTU(mtu), loop: loop)
            context.writerEndpoint = endpoint
            context.mtu = max(context.mtu, LinkContext.attMTU(mtu))
        } catch {
            if context.events.isDown {
                await disconnect()
                throw .disconnected
            }
            context.acquireWriteRefused = true
        }
    }

    /// A BlueZ failure in the engine's terms.
    static func transportError(_ error: BlueZError) -> DFUTransportError {
        switch error {
        case .failed(_, let attError?): .attError(attError)
        case .doesNotExist, .disconnected: .disconnected
        case .timedOut: .timedOut
        case .notRunning, .busUnavailable, .accessDenied, .noAdapter, .adapterNotFound, .adapterPoweredOff:
            .hostUnavailable(error.description)
        case .failed(let message, nil) where message.localizedNotConnected: .disconnected
        default: .failed(error.description)
        }
    }
}

extension String {
    /// Whether a BlueZ failure message says the link is gone.
    fileprivate var localizedNotConnected: Bool {
        let lower = lowercased()
        return lower.contains("not connected") || lower.contains("disconnected")
    }
}
