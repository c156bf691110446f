public import DBus
public import DFUCore
public import DFUSimulator
import IOLoop

/// bluetoothd's stand-in: serves the org.bluez D-Bus API (adapter, devices, GATT objects) on a
/// bus from simulated nRF5 devices, so that BlueZ clients run without a radio.
///
/// One adapter (`hci0` by default). Devices appear on discovery and expire `TemporaryTimeout` after
/// they were last seen unless paired or connected. Connect re-discovers the device's primary services
/// against the GATT objects cached from earlier connections (kept across disconnects and reboots, as
/// bluetoothd's `Cache = always` keeps them), removes what changed and exports what is new, then sets
/// ServicesResolved; writes reach the simulated firmware; its notifications come back as
/// PropertiesChanged(Value) or through AcquireNotify sockets; reboots drop the link.
public actor BlueZStandIn {
    /// A Device1 object on the bus.
    struct DeviceObject: Sendable {
        let path: ObjectPath
        let address: DFUDeviceAddress
        var connected = false
        var servicesResolved = false
        var paired = false
        var trusted = false
        /// The radio device linked now.
        var radio: Int?
        var generation = 0
        /// The GATT database bluetoothd holds for the device, exported on the bus (its cache: it
        /// stays after a disconnect while the cache policy keeps it).
        var gatt: GATTTable?
        var connecting = false
        /// Set by Disconnect while a delayed Connect is pending: that Connect fails.
        var connectCancelled = false
        /// Service UUIDs heard in advertisements (Device1.UUIDs until services were resolved).
        var advertisedUUIDs: [String] = []
        /// Whether bluetoothd would forget the device after TemporaryTimeout: true for a device only
        /// heard, false once Device1.Connect was called or its services were resolved (`src/device.c`
        /// `dev_connect`, `register_gatt_services`). (A failed pairing makes an unpaired device
        /// temporary again in `device_bonding_complete`, but the GATT discovery of the same link makes
        /// it permanent once more, so that is not modelled.)
        var temporary = true
        /// Whether the bond was made with MITM protection (passkey or numeric comparison).
        var authenticated = false
        /// The pending TemporaryTimeout expiry.
        var expiry: Task<Void, Never>?

        /// Device1.UUIDs: the resolved primary services while a GATT database is held, else what was
        /// advertised (BlueZ 5.66 `src/device.c` `dev_property_get_uuids`, `device_add_eir_uuids`).
        var uuids: [String] { gatt?.serviceUUIDs ?? advertisedUUIDs }
    }

    /// The connection it serves on.
    public nonisolated let connection: DBusConnection
    /// What it serves.
    public nonisolated let configuration: StandInConfiguration
    let names: BlueZVocabulary
    let adapterPath: ObjectPath
    var radios: [RadioDevice]
    var devices: [ObjectPath: DeviceObject] = [:]
    var powered: Bool
    var discoverySessions: [String: DiscoveryFilter] = [:]
    var pendingFilters: [String: DiscoveryFilter] = [:]
    /// Registered pairing agents by the client (bus name) that registered them.
    var agents: [String: RegisteredAgent] = [:]
    /// Clients whose agent asked to be the default, the current default first.
    var defaultAgents: [String] = []
    var started = false
    /// What the clients did, for ``observations()``.
    var observed = StandInObservations()
    /// Whether the adapter object is on the bus (false after `adapter-vanish-after-bytes`).
    var adapterPresent = false
    private nonisolated let events: AsyncStream<DeferredEvent>.Continuation
    private let eventStream: AsyncStream<DeferredEvent>
    private var eventTask: Task<Void, Never>?
    /// Answers of SMP devices held to the link's pace (`--link smp_paced=yes`), each with the wall-clock time it is
    /// due, in order, on a queue of their own: waiting for one must not hold back the client's next writes.
    private nonisolated let pacedEvents: AsyncStream<(due: ContinuousClock.Instant, event: DeferredEvent)>.Continuation
    private let pacedEventStream: AsyncStream<(due: ContinuousClock.Instant, event: DeferredEvent)>
    private var pacedTask: Task<Void, Never>?
    private var ownerTask: Task<Void, Never>?
    /// Device resets waiting for their time (``reset(_:radio:into:after:)``).
    private var resets: [Int: Task<Void, Never>] = [:]
    private var lastReset = 0

    /// Something done after the current handler returns, in order.
    enum DeferredEvent: Sendable {
        case notify(device: ObjectPath, generation: Int, characteristic: String, bytes: [UInt8], delay: Duration)
        case drop(device: ObjectPath, generation: Int, reboot: SimulatedBootTarget?, radio: Int, after: Duration)
        case resolve(device: ObjectPath, generation: Int)
        case announce(generation: Int)
        case drain(device: ObjectPath, generation: Int)
        case host(RadioDevice.HostEvent)
    }

    /// A stand-in serving `configuration` on `connection` (call ``start()``).
    public init(connection: DBusConnection, configuration: StandInConfiguration) throws(DBusError) {
        self.connection = connection
        self.configuration = configuration
        names = try BlueZVocabulary()
        adapterPath = try names.root.appending(configuration.adapterName)
        radios = configuration.devices.map {
            RadioDevice(
                spec: $0, link: configuration.link.model, faults: configuration.faults,
                pacesSMP: configuration.link.pacesSMP)
        }
        powered = configuration.powered
        (eventStream, events) = AsyncStream.makeStream(of: DeferredEvent.self)
        (pacedEventStream, pacedEvents) = AsyncStream.makeStream(of: (due: ContinuousClock.Instant, event: DeferredEvent).self)
    }

    /// Exports the object manager, /org/bluez and the adapter, then owns the name `org.bluez`.
    public func start() async throws(DBusError) {
        guard !started else { return }
        started = true
        let stream = eventStream
        eventTask = Task(executorPreference: connection.loop) { [weak self] in
            for await event in stream {
                guard let self else { return }
                await self.perform(event)
            }
        }
        let paced = pacedEventStream
        pacedTask = Task(executorPreference: connection.loop) { [weak self, loop = connection.loop] in
            for await (due, event) in paced {
                // A timer, not a poll: the answer is due at its modelled time (a timer of the bus's loop).
                await loop.sleep(until: due)
                guard let self else { return }
                await self.perform(event)
            }
        }
        connection.addObjectManager(at: .root)
        try connection.export(try rootInterfaces().map(Self.asBluetoothd), at: names.root)
        if configuration.hasAdapter {
            try connection.export([Self.asBluetoothd(try adapterInterface())], at: adapterPath)
            adapterPresent = true
        }
        try exportOtherAdapters()
        // Like bluetoothd, end the discovery sessions and notify subscriptions of clients that leave the bus.
        let owners = try await connection.signals(
            matching: DBusMatchRule(
                sender: try BusName("org.freedesktop.DBus"), interface: try InterfaceName("org.freedesktop.DBus"),
                member: try member("NameOwnerChanged")))
        ownerTask = Task(executorPreference: connection.loop) { [weak self] in
            for await message in owners {
                guard message.arguments.count == 3, let name = message.arguments[0].stringValue,
                    name.hasPrefix(":"), message.arguments[2].stringValue == ""
                else { continue }
                await self?.clientLeft(name)
            }
        }
        try await connection.requestName(names.service)
    }

    /// A client left the bus: its discovery session, filter, agent and StartNotify sessions end.
    func clientLeft(_ name: String) {
        pendingFilters[name] = nil
        // `src/agent.c` `agent_disconnect`: the agent of a client that left is removed.
        agents[name] = nil
        defaultAgents.removeAll { $0 == name }
        if discoverySessions.removeValue(forKey: name) != nil, discoverySessions.isEmpty { discoveryEnded() }
        for path in devices.keys.sorted() {
            // Cached objects of unconnected devices hold sessions too (they wait for the next link).
            guard let object = devices[path], let table = object.gatt else { continue }
            for (characteristicPath, var characteristic) in table.characteristics
            where characteristic.notifySenders.contains(name) {
                characteristic.notifySenders.remove(name)
                devices[path]?.gatt?.characteristics[characteristicPath] = characteristic
                if !characteristic.isNotifying {
                    if let radio = object.radio { radios[radio].setSubscribed(characteristic.uuid, false) }
                    try? connection.setProperty(
                        member("Notifying"), to: .boolean(false), interface: names.gattCharacteristic,
                        at: characteristicPath)
                }
            }
        }
    }

    /// Disconnects every device, closes every socket, ends the event loop (the connection stays open).
    public func stop() {
        for path in devices.keys.sorted() where devices[path]?.connected == true {
            tearDown(path, reboot: nil, announce: false)
        }
        for object in devices.values { object.expiry?.cancel() }
        for reset in resets.values { reset.cancel() }
        resets = [:]
        events.finish()
        eventTask?.cancel()
        pacedEvents.finish()
        pacedTask?.cancel()
        pacedTask = nil
        ownerTask?.cancel()
        ownerTask = nil
        eventTask = nil
    }

    /// The `--report` document as things stand.
    public func report() -> StandInReport {
        StandInReport(devices: radios.map(\.report))
    }

    /// What the stand-in saw of its clients so far; `agents` are the ones registered now.
    public func observations() -> StandInObservations {
        var result = observed
        result.agents = agents.keys.sorted().compactMap { owner in
            agents[owner].map { StandInObservations.Agent(owner: owner, path: $0.path, capability: $0.capability.rawValue) }
        }
        return result
    }

    /// What simulated device `index` (in `--device` order) is now: its firmware, flash and address.
    public func peripheral(ofDevice index: Int) -> SimulatedPeripheral? {
        radios.indices.contains(index) ? radios[index].peripheral : nil
    }

    /// The object path bluetoothd uses for a device at `address` on this adapter.
    public nonisolated func devicePath(for address: DFUDeviceAddress) -> ObjectPath? {
        try? adapterPath.appending("dev_" + address.description.replacingColons)
    }

    /// An interface as bluetoothd's gdbus serves it: a Get of a property it lacks is
    /// `InvalidArgs "No such property '…'"` (`gdbus/object.c` `properties_get`).
    static func asBluetoothd(_ interface: DBusInterface) -> DBusInterface {
        var served = interface
        served.unknownPropertyOnGet = .invalidArgs
        return served
    }

    /// A device's reset `after` its firmware asked for it: it drops the link it is on (whichever client's), or, with no
    /// client connected any more, just reboots. Nothing when the stand-in stops first.
    private func reset(_ device: ObjectPath, radio: Int, into target: SimulatedBootTarget, after: Duration) async {
        await pause(after)
        guard !Task.isCancelled else { return }
        if devices[device]?.connected == true, devices[device]?.radio == radio {
            tearDown(device, reboot: target, announce: true)
        } else if radios.indices.contains(radio) {
            radios[radio].reboot(into: target)
        }
    }

    private func resetDone(_ id: Int) { resets[id] = nil }

    nonisolated func enqueue(_ event: DeferredEvent) {
        events.yield(event)
    }

    /// Queues `event` on the paced queue, to be performed at `due` (after the paced events queued before it).
    nonisolated func enqueuePaced(_ event: DeferredEvent, due: ContinuousClock.Instant) {
        pacedEvents.yield((due, event))
    }

    /// Waits `duration` on a timer of the bus's loop (returns early when the task is cancelled). Like bluetoothd's
    /// one main loop, the stand-in's answers, timers and tasks all run on that loop's thread, never behind the
    /// shared pool's queue.
    func pause(_ duration: Duration) async {
        await connection.loop.sleep(until: .now + duration)
    }

    private func perform(_ event: DeferredEvent) async {
        switch event {
        case .notify(let device, let generation, let characteristic, let bytes, let delay):
            if delay > .zero { await pause(delay) }
            deliverNotification(device: device, generation: generation, characteristic: characteristic, bytes: bytes)
        case .drop(let device, let generation, let reboot, let radio, let after):
            guard let reboot, after > .milliseconds(2) else {
                await pause(.milliseconds(2))
                guard devices[device]?.generation == generation, devices[device]?.connected == true else { return }
                tearDown(device, reboot: reboot, announce: true)
                return
            }
            // The firmware resets that long after its answer (Zephyr's os_mgmt_reset schedules the reset
            // MCUMGR_GRP_OS_RESET_MS later and keeps answering meanwhile): on a timer of its own, so the events queued
            // after it are not held up, and whether or not the client is still connected then.
            lastReset += 1
            let id = lastReset
            resets[id] = Task {
                await self.reset(device, radio: radio, into: reboot, after: after)
                self.resetDone(id)
            }
        case .resolve(let device, let generation):
            await pause(configuration.link.resolveDelay)
            resolveServices(device, generation: generation)
        case .announce(let generation):
            await pause(configuration.link.discoveryDelay)
            guard generation == discoveryGeneration, !discoverySessions.isEmpty else { return }
            if configuration.host.version.diesOnDiscoveryUUIDMatch, matchesAFiltersUUIDs() {
                await quit()
                return
            }
            announceDevicesInRange()
        case .drain(let device, let generation):
            guard devices[device]?.generation == generation else { return }
            drainAcquiredWrites(device)
        case .host(.adapterVanishes):
            removeAdapter()
        case .host(.restarts):
            await restart()
        case .host(.quits):
            await quit()
        }
    }

    var discoveryGeneration = 0
}

extension String {
    var replacingColons: String { String(map { $0 == ":" ? "_" : $0 }) }
}
