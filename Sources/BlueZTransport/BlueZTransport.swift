public import BlueZ
public import DFUCore
import IOLoop

/// The engine's ``DFUTransport`` over BlueZ (bluetoothd's org.bluez D-Bus API).
///
/// One transport uses one adapter and holds at most one connection. It follows BlueZ's
/// signals (InterfacesAdded/Removed, PropertiesChanged) from the moment it is opened and never
/// polls. Notifications come through AcquireNotify (fallback StartNotify + PropertiesChanged),
/// packets go through AcquireWrite (fallback WriteValue type=command), control point writes use
/// type=request. Timeouts run on the continuous (wall) clock. Call ``close()`` when done.
///
/// Everything it waits for (the bus socket, the acquired sockets, every timeout) is on the process's
/// one ``EventLoop``; a task that runs the engine on ``executor`` is resumed on the loop's thread by
/// what it waited for, with no thread of the shared pool woken in between.
public actor BlueZTransport: DFUTransport {
    /// The adapter in use.
    public nonisolated let adapter: BlueZAdapter
    /// The typed org.bluez client.
    public nonisolated let client: BlueZClient
    /// The loop the bus connection and this transport's sockets and timers are on.
    let loop: EventLoop

    /// The executor to run the engine on (`withTaskExecutorPreference`): the event loop's thread.
    public nonisolated var executor: any TaskExecutor { loop }
    /// The continuous clock for the engine's waits (pacing), sleeping on the event loop's timer.
    public nonisolated var clock: any Clock<Duration> { LoopClock(loop: loop) }
    /// Whether packets go through AcquireWrite (default); false forces WriteValue type=command.
    public var usesAcquireWrite = true
    /// Whether notifications go through AcquireNotify (default); false forces StartNotify.
    public var usesAcquireNotify = true

    /// Chooses how packets and notifications travel (for measurements and for stacks where acquiring misbehaves).
    public func setAcquiring(write: Bool, notify: Bool) {
        usesAcquireWrite = write
        usesAcquireNotify = notify
    }

    /// The passkey given for pairing (`--passkey`): the agent answers a device's RequestPasskey with it.
    public var pairingPasskey: UInt32?
    /// Asks a person for the passkey when none was given (nil: a device that wants one cannot pair).
    public var passkeyPrompt: DFUPasskeyPrompt?
    /// The pairing agent, registered the first time a link may need pairing, unregistered by ``close()``.
    var agent: BlueZAgent?
    /// Whether registering the agent was tried (it is tried once per transport).
    var agentTried = false
    /// The agent was asked for a passkey and had none to give (for the pairing error's advice).
    var passkeyWanted = false
    /// Whether the agent was asked about the connected device since its subscription began (a pairing ran).
    var pairingAsked = false

    /// How the transport pairs when a device needs an encrypted link: with `passkey`, or what `prompt`
    /// returns, when the device asks for one; Just Works otherwise. Set before connecting.
    public func setPairing(passkey: UInt32?, prompt: DFUPasskeyPrompt?) {
        pairingPasskey = passkey
        passkeyPrompt = prompt
    }

    /// Whether ``close()`` closes the client's bus connection.
    let ownsClient: Bool
    /// Every device BlueZ reported on this adapter, kept current from signals.
    var devices: [BlueZPath: BlueZDevice] = [:]
    /// The GATT services and characteristics of this adapter's devices, kept as their signals are read.
    nonisolated let gatt: AnnouncedGATTObjects
    /// Devices heard advertising since the current discovery started.
    var heard: Set<BlueZPath> = []
    /// The connected (or connecting) device.
    var link: LinkContext?
    /// Waiters for a condition on the device table, resumed from the signal handler.
    var waiters: [Int: DeviceWaiter] = [:]
    var nextWaiterIdentifier = 0
    /// The characteristics whose AcquireNotify descriptor bluetoothd holds, from the AcquireNotify reply until its
    /// `NotifyAcquired` turns false (``awaitNotifyReleases(within:)``).
    var notifyAcquired: Set<BlueZPath> = []
    /// ``close()`` waiting for ``notifyAcquired`` to empty.
    var notifyReleaseWaiter: CheckedContinuation<Void, Never>?
    /// Reconnections waiting for bluetoothd and the adapter to come back (``waitForBlueZ()``).
    var returnWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// The signal-following tasks (org.bluez's signals, and its ownership of the bus name), on the loop.
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
        let client = try BlueZClient.open(busAddress: busAddress)
        do {
            return try await open(client: client, adapter: adapterName, ownsClient: true)
        } catch {
            client.close()
            throw error
        }
    }

    /// Uses an existing client (tests, or a caller sharing a connection); with `ownsClient`, ``close()`` closes it.
    public static func open(client: BlueZClient, adapter adapterName: String? = nil, ownsClient: Bool = false)
        async throws(BlueZError) -> BlueZTransport
    {
        let loop: EventLoop
        do throws(EventLoopError) {
            loop = try EventLoop.shared()
        } catch {
            throw BlueZError.busUnavailable("the event loop could not start: \(error)")
        }
        // Subscribed first, then one GetManagedObjects for both the adapter and the devices it knows, so nothing
        // falls between. The signals that came meanwhile wait in their streams and are handled after the devices
        // are loaded: each sets what it says, so one older than the tree is followed by the newer ones.
        let gatt = AnnouncedGATTObjects()
        let events = try await client.events(gattObjects: gatt.announce)
        let presence = try await client.presenceChanges()
        let tree = try await client.objects()
        let adapter = try chooseAdapter(in: tree, named: adapterName)
        gatt.seed(tree, adapter: adapter.path)
        let transport = BlueZTransport(client: client, adapter: adapter, gatt: gatt, loop: loop, ownsClient: ownsClient)
        await transport.start(events: events, presence: presence, knownDevices: tree.devices(of: adapter.path))
        return transport
    }

    /// Picks `name` or the first powered adapter, with the errors the CLI shows.
    public static func chooseAdapter(in tree: BlueZObjectTree, named name: String?) throws(BlueZError) -> BlueZAdapter {
        guard !tree.adapters.isEmpty else { throw BlueZError.noAdapter }
        if let name {
            guard let adapter = tree.adapters.first(where: { $0.name == name || $0.path.description == name }) else {
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

    init(client: BlueZClient, adapter: BlueZAdapter, gatt: AnnouncedGATTObjects, loop: EventLoop, ownsClient: Bool) {
        self.client = client
        self.adapter = adapter
        self.gatt = gatt
        self.loop = loop
        self.ownsClient = ownsClient
    }

    /// Loads the devices already known, then follows BlueZ's signals (``open(client:adapter:ownsClient:)``
    /// subscribed before it asked for `knownDevices`).
    func start(
        events: some AsyncSequence<[BlueZEvent], Never> & Sendable, presence: some AsyncSequence<Bool, Never> & Sendable,
        knownDevices: [BlueZDevice]
    ) {
        for device in knownDevices { devices[device.path] = device }
        // On the loop, where the bus connection delivers them: a signal reaches the transport
        // without waking another thread.
        signalTasks.append(Task(executorPreference: loop) { [weak self] in
            for await batch in events {
                guard let self else { return }
                await self.handle(batch)
            }
            await self?.blueZGone()
        })
        signalTasks.append(Task(executorPreference: loop) { [weak self] in
            for await present in presence {
                if present {
                    await self?.blueZReturned()
                } else {
                    await self?.blueZGone()
                }
            }
        })
    }

    /// Drops the link, stops following signals and closes the bus connection if this transport opened it.
    public func close() async {
        guard !isClosed else { return }
        await disconnect()
        isClosed = true
        await agent?.unregister()
        agent = nil
        await awaitNotifyReleases(within: Self.notifyReleaseGrace)
        for task in signalTasks { task.cancel() }
        signalTasks = []
        for waiter in waiters.values { waiter.continuation.resume(returning: nil) }
        waiters = [:]
        resumeReturnWaiters()
        if ownsClient { client.close() }
    }

    // MARK: Signals

    /// The events of one signal, then the waiters whose condition they may have met.
    func handle(_ events: [BlueZEvent]) {
        guard !events.isEmpty else { return }
        for event in events { handle(event) }
        resumeWaiters()
        resumeReturnWaiters()
    }

    private func handle(_ event: BlueZEvent) {
        switch event {
        case .adapterAdded(let path):
            if path == adapter.path {
                isAdapterGone = false
                if !isBlueZGone { goneSince = nil }
            }
        case .deviceAdded(let device):
            if adapter.path.isAncestor(of: device.path) {
                devices[device.path] = device
                heard.insert(device.path)
            }
        case .deviceRemoved(let path):
            devices[path] = nil
            heard.remove(path)
            forgetNotifyAcquired { path.isAncestor(of: $0) }
            if link?.device == path { linkDropped() }
        case .adapterRemoved(let path):
            if path == adapter.path {
                isAdapterGone = true
                goneSince = goneSince ?? ContinuousClock.now
                linkDropped()
            }
        case .deviceChanged(let change):
            handle(change)
        case .notifyReleased(let characteristic):
            forgetNotifyAcquired { $0 == characteristic }
        case .valueChanged(let characteristic, let value):
            if let link, let endpoint = link.valueWatch[characteristic] {
                link.events.post(DFUNotification(endpoint: endpoint, bytes: value))
            }
        case .adapterPowered(let path, let powered):
            if path == adapter.path, !powered { linkDropped() }
        }
    }

    private func handle(_ change: BlueZDeviceChange) {
        guard let device = devices[change.path] else { return }
        devices[change.path] = change.applied(to: device)
        if change.advertised { heard.insert(change.path) }
        if let link, link.device == change.path {
            // ServicesResolved = true counts as connected: bluetoothd 5.66 can miss Connected = true.
            if change.connected == true || change.servicesResolved == true {
                link.sawConnected = true
            } else if change.connected == false, link.sawConnected {
                linkDropped()
            }
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
        // The expiry runs on the loop too, so a busy shared pool cannot hold it back.
        let timer = loop.schedule(at: deadline) { [weak self, loop] in
            Task(executorPreference: loop) { await self?.expireReturnWaiter(identifier) }
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
        gatt.removeAll()
        goneSince = goneSince ?? ContinuousClock.now
        linkDropped()
        forgetNotifyAcquired { _ in true }
        for waiter in waiters.values { waiter.continuation.resume(returning: nil) }
        waiters = [:]
    }

    /// How long ``close()`` waits for bluetoothd to take back the AcquireNotify descriptors it closed.
    static let notifyReleaseGrace: Duration = .seconds(1)

    /// Waits, at most `timeout`, until bluetoothd has taken back every AcquireNotify descriptor (``notifyAcquired``
    /// empty): before this process leaves the bus. bluetoothd before 5.86 frees a notify session when its owner
    /// leaves the bus and then, handling the descriptor's hang-up, uses it: it crashed so in the VM (5.66, a
    /// segfault in `sock_hup`, the owner gone a moment before; BlueZ fixed it in "gatt-client: prevent use-after-free
    /// when clients disconnect", 2026). Its `NotifyAcquired` turning false says the hang-up was handled, while the
    /// owner was still there.
    func awaitNotifyReleases(within timeout: Duration) async {
        guard !notifyAcquired.isEmpty, !isBlueZGone, notifyReleaseWaiter == nil else { return }
        let timer = loop.schedule(at: ContinuousClock.now.advanced(by: timeout)) { [weak self, loop] in
            Task(executorPreference: loop) { await self?.resumeNotifyReleaseWaiter() }
        }
        await withCheckedContinuation { notifyReleaseWaiter = $0 }
        timer.cancel()
    }

    /// Drops the characteristics bluetoothd no longer holds a descriptor of (released, gone with their device, or
    /// bluetoothd gone), and wakes ``close()`` once none is left.
    func forgetNotifyAcquired(where released: (BlueZPath) -> Bool) {
        notifyAcquired = notifyAcquired.filter { !released($0) }
        if notifyAcquired.isEmpty { resumeNotifyReleaseWaiter() }
    }

    func resumeNotifyReleaseWaiter() {
        notifyReleaseWaiter?.resume()
        notifyReleaseWaiter = nil
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
        let timer = loop.schedule(at: ContinuousClock.now.advanced(by: timeout)) { [weak self, loop] in
            Task(executorPreference: loop) { await self?.expireWaiter(identifier) }
        }
        let found = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<BlueZDevice?, Never>) in
                waiters[identifier] = DeviceWaiter(condition: condition, continuation: continuation)
            }
        } onCancel: {
            Task(executorPreference: loop) { [weak self] in await self?.expireWaiter(identifier) }
        }
        timer.cancel()
        if found != nil || Task.isCancelled || isClosed { return found }
        // Out of time by the signals handled so far: bluetoothd's own objects have the last word, as a signal it
        // sent in time may still be unread (a process starved on a busy host).
        return await devicesKnownToBlueZ().flatMap(condition)
    }

    /// The devices bluetoothd has on this adapter now, read from bluetoothd (`GetManagedObjects`) rather than from
    /// the signals handled so far; nil when it cannot be asked. Devices the table lacks are added to it (their
    /// `InterfacesAdded` is still to be handled, and changes to a device the table lacks would be ignored); those
    /// it has are left to their signals, which come in order.
    func devicesKnownToBlueZ() async -> [BlueZDevice]? {
        guard !isBlueZGone, !isClosed, let tree = try? await client.objects() else { return nil }
        let known = tree.devices.filter { adapter.path.isAncestor(of: $0.path) }
        for device in known where devices[device.path] == nil {
            devices[device.path] = device
            if device.rssi != nil { heard.insert(device.path) }
        }
        return known
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
