public import DBus
public import DFUCore
public import DFUSimStandIn
import DFUSimulator
import BlueZ
import IOLoop

/// A simulated DFU target registered with a real bluetoothd as a GATT application plus an
/// LE advertisement, serving the firmware of its current role and switching roles on reboot.
///
/// Every firmware event (a write, an acquired packet, a link loss, a reboot) runs on this
/// actor one at a time, as on the single-threaded nRF5 event loop. Packets that came through
/// an AcquireWrite socket are handled before any later D-Bus write, so the order bluetoothd
/// received them in is kept.
public actor PeripheralHost {
    /// How the host is set up.
    public struct Configuration: Sendable {
        /// The adapter of the application (and of bootloaders that keep its address), e.g. `hci1`.
        public var adapter: String
        /// The adapter of a bootloader that comes back at another address, e.g. `hci2`.
        public var bootloaderAdapter: String?
        /// The simulated target (a `dfu-sim --device` specification).
        public var device: SimulatedDeviceSpec
        /// Offer AcquireWrite on write-without-response characteristics.
        public var acquireWrite = true
        /// Offer AcquireNotify on notify characteristics.
        public var acquireNotify = false
        /// Where the JSON report goes, nil for none.
        public var reportPath: String?
        /// Register the advertisement again this often while no central is connected, nil for never.
        ///
        /// btvirt's emulated controllers report an advertiser once, when scanning or advertising
        /// is enabled, instead of at every advertising interval; a report that races the kernel's
        /// start of discovery is lost until the next scan window (10.24 s), and under load every
        /// window can lose it. Re-registering makes the controller report again, as a real
        /// advertiser's next advertising event would.
        public var readvertiseInterval: Duration?
        /// Disconnect the central once, after this many bytes were written without response
        /// (the data packets), nil for never: a link lost in the middle of a data object.
        public var disconnectAfterPacketBytes: Int?
        /// Register a NoInputNoOutput pairing agent that accepts Just Works pairing, as the
        /// default agent (bluetoothd refuses pairing when no agent answers; see ``PairingAgent``).
        public var acceptsPairing = false

        /// A configuration with the defaults: AcquireWrite offered, AcquireNotify not, no report.
        public init(adapter: String, bootloaderAdapter: String? = nil, device: SimulatedDeviceSpec) {
            self.adapter = adapter
            self.bootloaderAdapter = bootloaderAdapter
            self.device = device
        }
    }

    /// What the host prints: one line per event.
    public typealias Log = @Sendable (String) -> Void

    let connection: DBusConnection
    /// The connection's event loop, where the peripheral's own tasks and timers run (as bluetoothd's and a
    /// device's firmware do, on one loop): never queued behind the shared pool's work.
    nonisolated var loop: EventLoop { connection.loop }
    let configuration: Configuration
    let names: BlueZVocabulary
    let log: Log
    let started = ContinuousClock.now
    let notifications: AsyncStream<Pending>.Continuation

    var peripheral: SimulatedPeripheral
    var layout: GattLayout?
    var advertisementPath: ObjectPath?
    var registeredAdapter: String?
    var generation = 0
    /// Whether characteristics offer AcquireWrite: as configured, unless bluetoothd would lose writes through it.
    var offersAcquireWrite: Bool
    var subscribed: Set<String> = []
    var writeSockets: [ObjectPath: AcquiredSocket] = [:]
    var notifySockets: [ObjectPath: AcquiredSocket] = [:]
    var central: ObjectPath?
    var isRebooting = false
    var packetBytes = 0
    var disconnectedOnPurpose = false
    /// Set from the moment the link is "lost" on purpose until bluetoothd reports it down: writes
    /// are lost as over the air, and no answer or notification follows them. Requests are still
    /// acknowledged at once: bluetoothd 5.66 crashed when a WriteValue reply was held until after
    /// the link went down.
    var linkLost = false
    /// Whether Device1.Disconnect was asked for since the link was "lost" (see ``requestDisconnect(after:because:)``).
    var disconnectRequested = false
    var centralConnected = false
    /// True while a role is being registered or unregistered (the actor is re-entered at awaits).
    var registering = false
    var readvertiser: Task<Void, Never>?
    /// The re-registration in flight, if any. It is never cancelled half-way, and ``unregister()`` waits for it:
    /// bluetoothd 5.66 frees an advertisement that is unregistered while its own add is still pending in the
    /// kernel, then uses it when the kernel answers and aborts (`advertising.c`; seen once in 200 uploads of
    /// `make soak-bluez`; fixed upstream by "advertising: Fix assigning mgmt callback id when adding
    /// advertisement", 2024). A cancelled D-Bus call only stops waiting for its reply; bluetoothd goes on.
    var readvertising: Task<Void, Never>?
    var watcher: Task<Void, Never>?
    var agent: PairingAgent?
    /// SMP requests, answers and retransmissions (SMP devices).
    var smpTraffic = SMPTrafficCounter()
    var notifier: Task<Void, Never>?
    /// What the report file says; read it with ``currentReport``.
    var report: PeripheralReport

    struct PendingNotification: Sendable {
        var due: ContinuousClock.Instant
        var generation: Int
        var characteristic: String
        var bytes: [UInt8]
    }

    /// What the notifier does in turn: a notification, or the target's reboot. The reboot takes its turn
    /// in the same queue, after every answer queued before it, as the device sends its answer first and
    /// resets afterwards (Zephyr's reset answers, then resets after CONFIG_MCUMGR_GRP_OS_RESET_MS). With a
    /// task of its own, a loaded host could run the reboot first and drop the answer.
    enum Pending: Sendable {
        case notification(PendingNotification)
        case reboot(SimulatedBootTarget, due: ContinuousClock.Instant)

        var due: ContinuousClock.Instant {
            switch self {
            case .notification(let notification): notification.due
            case .reboot(_, let due): due
            }
        }
    }

    /// Prepares the host; nothing is registered until ``start()``.
    ///
    /// - Parameter address: the chip's address, the application adapter's own.
    public init(
        connection: DBusConnection, configuration: Configuration, address: DFUDeviceAddress, log: @escaping Log
    ) throws(DBusError) {
        self.connection = connection
        self.configuration = configuration
        offersAcquireWrite = configuration.acquireWrite
        self.names = try BlueZVocabulary()
        self.log = log
        peripheral = configuration.device.makePeripheral(address: address)
        report = PeripheralReport(storage: peripheral.storage)
        (stream, notifications) = AsyncStream.makeStream(of: Pending.self)
    }

    let stream: AsyncStream<Pending>

    /// The report as it stands.
    public var currentReport: PeripheralReport {
        var current = report
        if let target = peripheral.firmware as? SimulatedZephyrTarget { current.updateSMP(target: target, traffic: smpTraffic) }
        return current
    }

    /// Whether the simulated device runs a Secure DFU bootloader now (which refuses pairing).
    var runsSecureBootloader: Bool { peripheral.firmware is SimulatedSecureBootloader }

    /// Powers the adapters on, watches links, and registers the current role.
    public func start() async throws(PeripheralError) {
        let adapters = [configuration.adapter] + (configuration.bootloaderAdapter.map { [$0] } ?? [])
        for adapter in adapters {
            try await setAdapterProperty(adapter, "Powered", .boolean(true))
        }
        if offersAcquireWrite, let release = await bluetoothdRelease(), release < .keepsWritesDuringAcquireWrite {
            offersAcquireWrite = false
            log("bluetoothd \(release.major).\(release.minor) loses writes that arrive while it acquires a characteristic "
                + "(fixed in 5.60): AcquireWrite is not offered, writes come through WriteValue")
        }
        // An SMP device whose characteristic needs security pairs through an agent with its IO capability.
        let spec = configuration.device
        let securedSMP = spec.kind.isSMP && spec.pairing.security != .none
        if configuration.acceptsPairing || securedSMP {
            let agent: PairingAgent
            do {
                agent = try PairingAgent(
                    connection: connection, service: names.service, log: log, pairing: securedSMP ? spec.pairing : nil,
                    refusesPairing: { [weak self] in await self?.runsSecureBootloader ?? false })
            } catch {
                throw .bluez(what: "preparing the pairing agent", reason: error.description)
            }
            try await agent.register()
            self.agent = agent
        }
        do {
            let rule = DBusMatchRule(
                sender: names.service, pathNamespace: names.root,
                interface: try InterfaceName("org.freedesktop.DBus.Properties"),
                member: try MemberName("PropertiesChanged"))
            let changes = try await connection.signals(matching: rule)
            watcher = Task(executorPreference: loop) { [self] in
                for await message in changes {
                    guard let change = DBusPropertiesChanged(message) else { continue }
                    await deviceChanged(change)
                }
            }
        } catch {
            throw .bluez(what: "watching devices", reason: error.description)
        }
        let stream = stream
        notifier = Task(executorPreference: loop) { [self, loop] in
            for await pending in stream {
                await loop.sleep(until: pending.due)
                guard !Task.isCancelled else { return }
                switch pending {
                case .notification(let notification): await send(notification)
                case .reboot(let target, _): await reboot(into: target)
                }
            }
        }
        try await registerCurrentRole()
        if let interval = configuration.readvertiseInterval {
            readvertiser = Task(executorPreference: loop) { [self, loop] in
                while !Task.isCancelled {
                    await loop.sleep(until: .now + interval)
                    guard !Task.isCancelled else { return }
                    await readvertiseToTheEnd()
                }
            }
        }
    }

    /// Runs ``readvertise()`` in a task of its own, which the re-advertising loop's cancellation does not reach.
    func readvertiseToTheEnd() async {
        let call = Task(executorPreference: loop) { await self.readvertise() }
        readvertising = call
        await call.value
        readvertising = nil
    }

    /// Registers the advertisement again (see ``Configuration/readvertiseInterval``).
    func readvertise() async {
        guard !centralConnected, !isRebooting, !registering, let adapter = registeredAdapter, let advertisementPath,
            let adapterPath = try? names.adapterPath(adapter)
        else { return }
        try? await callBlueZ(
            "UnregisterAdvertisement", path: adapterPath, interface: names.advertisingManager,
            member: "UnregisterAdvertisement", [.objectPath(advertisementPath)])
        guard !centralConnected, !isRebooting, !registering, registeredAdapter == adapter,
            self.advertisementPath == advertisementPath
        else { return }
        do {
            try await callBlueZ(
                "RegisterAdvertisement on \(adapter)", path: adapterPath, interface: names.advertisingManager,
                member: "RegisterAdvertisement", [.objectPath(advertisementPath), .stringVariantDictionary([:])])
        } catch {
            log("warning: \(error)")
        }
    }

    /// Unregisters everything and writes the report one last time.
    public func stop() async {
        readvertiser?.cancel()
        await unregister()
        await agent?.unregister()
        agent = nil
        watcher?.cancel()
        notifications.finish()
        notifier?.cancel()
        writeReport()
    }

    // MARK: Registration

    var elapsed: Duration { ContinuousClock.now - started }

    var roleName: String {
        if (peripheral.firmware as? SimulatedZephyrTarget)?.runsLoader == true { return "firmware loader" }
        return peripheral.inBootloader ? "bootloader" : "application"
    }

    /// The adapter for the current role: the bootloader's own when it came back at another address.
    var adapterForRole: String {
        if peripheral.address != peripheral.profile.address {
            if let other = configuration.bootloaderAdapter { return other }
            log("warning: the bootloader changes address but there is no --bootloader-adapter; staying on \(configuration.adapter)")
        }
        return configuration.adapter
    }

    func registerCurrentRole() async throws(PeripheralError) {
        registering = true
        defer { registering = false }
        generation += 1
        let adapter = adapterForRole
        let firmware = peripheral.firmware
        do {
            let root = try ObjectPath("/org/dfusim/peripheral/app\(generation)")
            let spec = configuration.device
            let layout = try GattLayout(
                services: firmware.services, root: root, acquireWrite: offersAcquireWrite,
                acquireNotify: configuration.acquireNotify,
                secured: spec.kind.isSMP ? [DFUServiceUUIDs().smpCharacteristic.uppercased()] : [],
                security: spec.kind.isSMP ? spec.pairing.security : .none)
            connection.addObjectManager(at: root)
            for service in layout.services {
                try connection.export([serviceInterface(service)], at: service.path)
                for characteristic in service.characteristics {
                    try connection.export(
                        [characteristicInterface(characteristic, servicePath: service.path)], at: characteristic.path)
                }
            }
            let advertisement = try ObjectPath("/org/dfusim/peripheral/advertisement\(generation)")
            try connection.export([advertisementInterface(firmware)], at: advertisement)
            self.layout = layout
            self.advertisementPath = advertisement
        } catch {
            throw .bluez(what: "exporting the GATT application", reason: error.description)
        }
        // The GAP Device Name is the adapter's alias; keep it equal to the advertised name so a
        // central that reads it does not rename the device.
        try await setAdapterProperty(adapter, "Alias", .string(firmware.advertisedName))
        guard let layout, let advertisementPath else { return }
        let adapterPath: ObjectPath
        do { adapterPath = try names.adapterPath(adapter) } catch { throw .adapterNotFound(adapter) }
        try await callBlueZ(
            "RegisterApplication on \(adapter)", path: adapterPath, interface: names.gattManager,
            member: "RegisterApplication", [.objectPath(layout.root), .stringVariantDictionary([:])])
        registeredAdapter = adapter
        try await callBlueZ(
            "RegisterAdvertisement on \(adapter)", path: adapterPath, interface: names.advertisingManager,
            member: "RegisterAdvertisement", [.objectPath(advertisementPath), .stringVariantDictionary([:])])
        report.role = roleName
        report.adapter = adapter
        report.advertisedName = firmware.advertisedName
        report.boots.append(PeripheralReport.Boot(role: roleName, adapter: adapter, advertisedName: firmware.advertisedName))
        report.update(storage: peripheral.storage)
        writeReport()
        log("ready \(roleName) on \(adapter) as \(firmware.advertisedName) (\(firmware.services.map(\.uuid).joined(separator: " ")))")
    }

    func unregister() async {
        registering = true
        defer { registering = false }
        await withdrawAdvertisement()
        guard let adapter = registeredAdapter, let adapterPath = try? names.adapterPath(adapter) else { return }
        registeredAdapter = nil
        if let layout {
            try? await callBlueZ(
                "UnregisterApplication", path: adapterPath, interface: names.gattManager,
                member: "UnregisterApplication", [.objectPath(layout.root)])
            for service in layout.services {
                for characteristic in service.characteristics { try? connection.unexport(at: characteristic.path) }
                try? connection.unexport(at: service.path)
            }
        }
        layout = nil
        advertisementPath = nil
        closeSockets()
    }

    /// Unregisters the advertisement and keeps the GATT application (``unregister()`` and ``reboot(into:)``).
    func withdrawAdvertisement() async {
        // A re-registration in flight ends first (``readvertising``); seeing `registering` or `isRebooting`, it adds
        // nothing more.
        await readvertising?.value
        guard let adapter = registeredAdapter, let adapterPath = try? names.adapterPath(adapter), let advertisementPath
        else { return }
        self.advertisementPath = nil
        try? await callBlueZ(
            "UnregisterAdvertisement", path: adapterPath, interface: names.advertisingManager,
            member: "UnregisterAdvertisement", [.objectPath(advertisementPath)])
        try? connection.unexport(at: advertisementPath)
    }

    func callBlueZ(
        _ what: String, path: ObjectPath, interface: InterfaceName, member: String, _ arguments: [DBusValue]
    ) async throws(PeripheralError) {
        do {
            _ = try await connection.call(
                destination: names.service, path: path, interface: interface, member: try MemberName(member),
                arguments: arguments)
        } catch {
            if error.code == .unknownObject || error.code == .unknownMethod {
                throw .bluez(what: what, reason: "\(error.description) (is the adapter there?)")
            }
            throw .bluez(what: what, reason: error.description)
        }
    }

    /// The release of the bluetoothd serving the adapter, from its Modalias; nil when it does not say.
    func bluetoothdRelease() async -> BluetoothdRelease? {
        guard let path = try? names.adapterPath(configuration.adapter),
            let modalias = try? await connection.property(
                "Modalias", of: names.adapter, at: path, destination: names.service
            ).stringValue
        else { return nil }
        return BluetoothdRelease(modalias: modalias)
    }

    func setAdapterProperty(_ adapter: String, _ name: String, _ value: DBusValue) async throws(PeripheralError)
    {
        do {
            try await connection.setProperty(
                name, of: names.adapter, at: try names.adapterPath(adapter), to: value, destination: names.service)
        } catch {
            if error.code == .unknownObject || error.code == .unknownInterface { throw .adapterNotFound(adapter) }
            throw .bluez(what: "setting \(adapter)'s \(name)", reason: error.description)
        }
    }
}
