public import BlueZ
public import DBus
public import DFUCore

/// The engine's ``DFUTransport`` over BlueZ (bluetoothd's org.bluez D-Bus API).
///
/// One transport uses one adapter and holds at most one connection. It follows BlueZ's
/// signals (InterfacesAdded/Removed, PropertiesChanged) from the moment it is opened and never
/// polls. Notifications come through AcquireNotify (fallback StartNotify + PropertiesChanged),
/// packets go through AcquireWrite (fallback WriteValue type=command), control point writes use
/// type=request. Timeouts run on the continuous (wall) clock. Call ``close()`` when done.
public actor BlueZTransport: DFUTransport {
    /// The adapter in use.
    public nonisolated let adapter: BlueZAdapter
    /// The typed org.bluez client.
    public nonisolated let client: BlueZClient
    /// Whether packets go through AcquireWrite (default); false forces WriteValue type=command.
    public var usesAcquireWrite = true
    /// Whether notifications go through AcquireNotify (default); false forces StartNotify.
    public var usesAcquireNotify = true

    /// Chooses how packets and notifications travel (for measurements and for stacks where acquiring misbehaves).
    public func setAcquiring(write: Bool, notify: Bool) {
        usesAcquireWrite = write
        usesAcquireNotify = notify
    }

    /// The connection this transport opened itself (closed by ``close()``), if any.
    let ownedConnection: DBusConnection?
    /// Every device BlueZ reported on this adapter, kept current from signals.
    var devices: [ObjectPath: BlueZDevice] = [:]
    /// Devices heard advertising since the current discovery started.
    var heard: Set<ObjectPath> = []
    /// The connected (or connecting) device.
    var link: LinkContext?
    /// Waiters for a condition on the device table, resumed from the signal handler.
    var waiters: [Int: DeviceWaiter] = [:]
    var nextWaiterIdentifier = 0
    /// Reconnections waiting for bluetoothd and the adapter to come back (``waitForBlueZ()``).
    var returnWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// The signal-following tasks (org.bluez's signals, and its ownership of the bus name).
    var signalTasks: [Task<Void, Never>] = []
    /// Set when bluetoothd left the bus or the bus closed.
    var isBlueZGone = false
    /// Set when the adapter in use was removed (unplugged); cleared when it comes back.
    var isAdapterGone = false
    /// When bluetoothd or the adapter went away: a reconnection waits for its return until
    /// ``returnGrace`` after that, once, then fails at once.
    var goneSince: ContinuousClock.Instant?
    /// How long a restarting bluetoothd (or a re-plugged adapter) is waited for.
    static let returnGrace: Duration = .seconds(2)
    var isClosed = false

    /// A condition waited for with ``waitForDevices(within:until:)``.
    struct DeviceWaiter {
        let condition: @Sendable ([BlueZDevice]) -> BlueZDevice?
        let continuation: CheckedContinuation<BlueZDevice?, Never>
    }

    /// Opens the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), or the bus at `busAddress`, and picks the
    /// adapter: `adapterName` (`hci0`) or the first powered one. Throws ``BlueZError`` when the bus, BlueZ
    /// or the adapter is unusable.
    public static func open(adapter adapterName: String? = nil, busAddress: String? = nil) async throws(BlueZError)
        -> BlueZTransport
    {
        let connection: DBusConnection
        do {
            if let busAddress {
                connection = try DBusConnection(address: busAddress)
            } else {
                connection = try DBusConnection.systemBus()
            }
        } catch {
            let mapped = BlueZError(error)
            if case .accessDenied = mapped { throw mapped }
            throw BlueZError.busUnavailable(error.message.isEmpty ? error.name : error.message)
        }
        do {
            return try await open(client: BlueZClient(bus: connection), adapter: adapterName, owning: connection)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Uses an existing bus client (tests, or a caller sharing a connection); `owning` is closed by ``close()``.
    public static func open(client: BlueZClient, adapter adapterName: String? = nil, owning: DBusConnection? = nil)
        async throws(BlueZError) -> BlueZTransport
    {
        let tree = try await client.objects()
        let adapter = try chooseAdapter(in: tree, named: adapterName)
        let transport = BlueZTransport(client: client, adapter: adapter, ownedConnection: owning)
        try await transport.start()
        return transport
    }

    /// Picks `name` or the first powered adapter, with the errors the CLI shows.
    public static func chooseAdapter(in tree: BlueZObjectTree, named name: String?) throws(BlueZError) -> BlueZAdapter {
        guard !tree.adapters.isEmpty else { throw BlueZError.noAdapter }
        if let name {
            guard let adapter = tree.adapters.first(where: { $0.name == name || $0.path.rawValue == name }) else {
                throw BlueZError.adapterNotFound(name: name, available: tree.adapters.map(\.name))
            }
            guard adapter.isPowered else { throw BlueZError.adapterPoweredOff(adapter.name) }
            return adapter
        }
        guard let powered = tree.adapters.first(where: \.isPowered) else {
            throw BlueZError.adapterPoweredOff(tree.adapters.map(\.name).joined(separator: ", "))
        }
        return powered
    }

    init(client: BlueZClient, adapter: BlueZAdapter, ownedConnection: DBusConnection?) {
        self.client = client
        self.adapter = adapter
        self.ownedConnection = ownedConnection
    }

    /// Subscribes to BlueZ's signals, then loads the devices already known (so nothing falls between).
    func start() async throws(BlueZError) {
        let stream = try await client.signals()
        let owners = try await client.ownerChanges()
        signalTasks.append(Task { [weak self] in
            for await message in stream {
                guard let self else { return }
                await self.handle(message)
            }
            await self?.blueZGone()
        })
        signalTasks.append(Task { [weak self] in
            for await message in owners {
                if message.arguments.last?.stringValue == "" {
                    await self?.blueZGone()
                } else {
                    await self?.blueZReturned()
                }
            }
        })
        let tree = try await client.objects()
        for device in tree.devices(of: adapter.path) where devices[device.path] == nil {
            devices[device.path] = device
        }
    }

    /// Drops the link, stops following signals and closes the bus connection if this transport opened it.
    public func close() async {
        guard !isClosed else { return }
        await disconnect()
        isClosed = true
        for task in signalTasks { task.cancel() }
        signalTasks = []
        for waiter in waiters.values { waiter.continuation.resume(returning: nil) }
        waiters = [:]
        resumeReturnWaiters()
        ownedConnection?.close()
    }

    // MARK: Signals

    func handle(_ message: DBusMessage) {
        if let added = DBusInterfacesAdded(message) {
            if added.object == adapter.path, added.interfaces[BlueZInterfaces.adapter] != nil {
                isAdapterGone = false
                if !isBlueZGone { goneSince = nil }
            }
            if let properties = added.interfaces[BlueZInterfaces.device],
                let device = BlueZDevice(path: added.object, properties: properties),
                adapter.path.isAncestor(of: added.object)
            {
                devices[added.object] = device
                heard.insert(added.object)
            }
        } else if let removed = DBusInterfacesRemoved(message) {
            if removed.interfaces.contains(BlueZInterfaces.device) {
                devices[removed.object] = nil
                heard.remove(removed.object)
                if link?.device == removed.object { linkDropped() }
            }
            if removed.interfaces.contains(BlueZInterfaces.adapter), removed.object == adapter.path {
                isAdapterGone = true
                goneSince = goneSince ?? ContinuousClock.now
                linkDropped()
            }
        } else if let changed = DBusPropertiesChanged(message) {
            handlePropertiesChanged(changed)
        }
        resumeWaiters()
        resumeReturnWaiters()
    }

    private func handlePropertiesChanged(_ changed: DBusPropertiesChanged) {
        switch changed.interface {
        case BlueZInterfaces.device:
            guard var device = devices[changed.path] else { return }
            device.apply(changed: changed.changed, invalidated: changed.invalidated)
            devices[changed.path] = device
            let advertisingKeys = ["RSSI", "ManufacturerData", "ServiceData", "TxPower"]
            if advertisingKeys.contains(where: { changed.changed[$0] != nil }) { heard.insert(changed.path) }
            if let link, link.device == changed.path {
                // ServicesResolved = true counts as connected: bluetoothd 5.66 can miss Connected = true.
                if changed.changed["Connected"]?.boolValue == true || changed.changed["ServicesResolved"]?.boolValue == true {
                    link.sawConnected = true
                } else if changed.changed["Connected"]?.boolValue == false, link.sawConnected {
                    linkDropped()
                }
            }
        case BlueZInterfaces.gattCharacteristic:
            guard let link, let endpoint = link.valueWatch[changed.path],
                let value = changed.changed["Value"]?.byteArrayValue
            else { return }
            link.events.post(DFUNotification(endpoint: endpoint, bytes: value))
        case BlueZInterfaces.adapter:
            if changed.path == adapter.path, changed.changed["Powered"]?.boolValue == false { linkDropped() }
        default:
            return
        }
    }

    /// bluetoothd is on the bus again (restarted): new calls may succeed; the old link stays down, and
    /// the devices the old one reported are forgotten (the new one starts without them).
    func blueZReturned() {
        guard isBlueZGone else { return }
        isBlueZGone = false
        if !isAdapterGone { goneSince = nil }
        devices = [:]
        heard = []
        resumeReturnWaiters()
    }

    /// Waits, until ``returnGrace`` after they went away, for a restarted bluetoothd to take org.bluez
    /// again and for the adapter in use to be back (re-plugged, or announced by the restarted bluetoothd).
    /// Woken by the signals that say so (``resumeReturnWaiters()``), or by the deadline.
    func waitForBlueZ() async {
        guard let since = goneSince else { return }
        let deadline = since + Self.returnGrace
        guard isBlueZGone || isAdapterGone, !isClosed, ContinuousClock.now < deadline else { return }
        nextWaiterIdentifier += 1
        let identifier = nextWaiterIdentifier
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
            await self?.expireReturnWaiter(identifier)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            returnWaiters[identifier] = continuation
        }
        timer.cancel()
    }

    private func expireReturnWaiter(_ identifier: Int) {
        returnWaiters.removeValue(forKey: identifier)?.resume()
    }

    /// Wakes ``waitForBlueZ()`` once bluetoothd and the adapter are both back, or the transport closed.
    func resumeReturnWaiters() {
        guard !returnWaiters.isEmpty, isClosed || !(isBlueZGone || isAdapterGone) else { return }
        let waiting = returnWaiters.values
        returnWaiters = [:]
        for continuation in waiting { continuation.resume() }
    }

    func blueZGone() {
        isBlueZGone = true
        goneSince = goneSince ?? ContinuousClock.now
        linkDropped()
        for waiter in waiters.values { waiter.continuation.resume(returning: nil) }
        waiters = [:]
    }

    /// The link is down: release its descriptors and wake the engine.
    func linkDropped() {
        guard let link else { return }
        link.release()
        link.events.markDown()
        resumeWaiters()
    }

    // MARK: Waiting on the device table

    /// Waits until `condition` picks a device (checked now and after every signal); nil after `timeout`.
    func waitForDevices(within timeout: Duration, until condition: @escaping @Sendable ([BlueZDevice]) -> BlueZDevice?)
        async -> BlueZDevice?
    {
        if let found = condition(Array(devices.values)) { return found }
        if isBlueZGone || isClosed { return nil }
        nextWaiterIdentifier += 1
        let identifier = nextWaiterIdentifier
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            await self?.expireWaiter(identifier)
        }
        let found = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<BlueZDevice?, Never>) in
                waiters[identifier] = DeviceWaiter(condition: condition, continuation: continuation)
            }
        } onCancel: {
            Task { [weak self] in await self?.expireWaiter(identifier) }
        }
        timer.cancel()
        return found
    }

    private func expireWaiter(_ identifier: Int) {
        waiters.removeValue(forKey: identifier)?.continuation.resume(returning: nil)
    }

    func resumeWaiters() {
        guard !waiters.isEmpty else { return }
        let snapshot = Array(devices.values)
        for (identifier, waiter) in waiters {
            if let found = waiter.condition(snapshot) {
                waiters[identifier] = nil
                waiter.continuation.resume(returning: found)
            }
        }
    }
}
