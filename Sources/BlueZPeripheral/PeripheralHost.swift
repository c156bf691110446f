public import DBus
public import BlueZStandIn
public import DFUCore
import DFUSimulator
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

    private let connection: DBusConnection
    /// The connection's event loop, where the peripheral's own tasks and timers run (as bluetoothd's and a
    /// device's firmware do, on one loop): never queued behind the shared pool's work.
    private nonisolated var loop: EventLoop { connection.loop }
    private let configuration: Configuration
    private let names: BlueZVocabulary
    private let log: Log
    private let started = ContinuousClock.now
    private let notifications: AsyncStream<Pending>.Continuation

    private var peripheral: SimulatedPeripheral
    private var layout: GattLayout?
    private var advertisementPath: ObjectPath?
    private var registeredAdapter: String?
    private var generation = 0
    private var subscribed: Set<String> = []
    private var writeSockets: [ObjectPath: AcquiredSocket] = [:]
    private var notifySockets: [ObjectPath: AcquiredSocket] = [:]
    private var central: ObjectPath?
    private var isRebooting = false
    private var packetBytes = 0
    private var disconnectedOnPurpose = false
    /// Set from the moment the link is "lost" on purpose until bluetoothd reports it down: writes
    /// are lost as over the air, and no answer or notification follows them. Requests are still
    /// acknowledged at once: bluetoothd 5.66 crashed when a WriteValue reply was held until after
    /// the link went down.
    private var linkLost = false
    /// Whether Device1.Disconnect was asked for since the link was "lost" (see ``requestDisconnect(after:because:)``).
    private var disconnectRequested = false
    private var centralConnected = false
    /// True while a role is being registered or unregistered (the actor is re-entered at awaits).
    private var registering = false
    private var readvertiser: Task<Void, Never>?
    /// The re-registration in flight, if any. It is never cancelled half-way, and ``unregister()`` waits for it:
    /// bluetoothd 5.66 frees an advertisement that is unregistered while its own add is still pending in the
    /// kernel, then uses it when the kernel answers and aborts (`advertising.c`; seen once in 200 uploads of
    /// `make soak-bluez`; fixed upstream by "advertising: Fix assigning mgmt callback id when adding
    /// advertisement", 2024). A cancelled D-Bus call only stops waiting for its reply; bluetoothd goes on.
    private var readvertising: Task<Void, Never>?
    private var watcher: Task<Void, Never>?
    private var agent: PairingAgent?
    /// SMP requests, answers and retransmissions (SMP devices).
    private var smpTraffic = SMPTrafficCounter()
    private var notifier: Task<Void, Never>?
    /// What the report file says; read it with ``currentReport``.
    private var report: PeripheralReport

    private struct PendingNotification: Sendable {
        var due: ContinuousClock.Instant
        var generation: Int
        var characteristic: String
        var bytes: [UInt8]
    }

    /// What the notifier does in turn: a notification, or the target's reboot. The reboot takes its turn
    /// in the same queue, after every answer queued before it, as the device sends its answer first and
    /// resets afterwards (Zephyr's reset answers, then resets after CONFIG_MCUMGR_GRP_OS_RESET_MS). With a
    /// task of its own, a loaded host could run the reboot first and drop the answer.
    private enum Pending: Sendable {
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
        self.names = try BlueZVocabulary()
        self.log = log
        peripheral = configuration.device.makePeripheral(address: address)
        report = PeripheralReport(storage: peripheral.storage)
        (stream, notifications) = AsyncStream.makeStream(of: Pending.self)
    }

    private let stream: AsyncStream<Pending>

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
    private func readvertiseToTheEnd() async {
        let call = Task(executorPreference: loop) { await self.readvertise() }
        readvertising = call
        await call.value
        readvertising = nil
    }

    /// Registers the advertisement again (see ``Configuration/readvertiseInterval``).
    private func readvertise() async {
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

    private var elapsed: Duration { ContinuousClock.now - started }

    private var roleName: String { peripheral.inBootloader ? "bootloader" : "application" }

    /// The adapter for the current role: the bootloader's own when it came back at another address.
    private var adapterForRole: String {
        if peripheral.address != peripheral.profile.address {
            if let other = configuration.bootloaderAdapter { return other }
            log("warning: the bootloader changes address but there is no --bootloader-adapter; staying on \(configuration.adapter)")
        }
        return configuration.adapter
    }

    private func registerCurrentRole() async throws(PeripheralError) {
        registering = true
        defer { registering = false }
        generation += 1
        let adapter = adapterForRole
        let firmware = peripheral.firmware
        do {
            let root = try ObjectPath("/org/dfusim/peripheral/app\(generation)")
            let spec = configuration.device
            let layout = try GattLayout(
                services: firmware.services, root: root, acquireWrite: configuration.acquireWrite,
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

    private func unregister() async {
        registering = true
        defer { registering = false }
        // A re-registration in flight ends first (``readvertising``); seeing `registering`, it adds nothing more.
        await readvertising?.value
        guard let adapter = registeredAdapter, let adapterPath = try? names.adapterPath(adapter) else { return }
        registeredAdapter = nil
        if let advertisementPath {
            try? await callBlueZ(
                "UnregisterAdvertisement", path: adapterPath, interface: names.advertisingManager,
                member: "UnregisterAdvertisement", [.objectPath(advertisementPath)])
            try? connection.unexport(at: advertisementPath)
        }
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

    private func callBlueZ(
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

    private func setAdapterProperty(_ adapter: String, _ name: String, _ value: DBusValue) async throws(PeripheralError)
    {
        do {
            try await connection.setProperty(
                name, of: names.adapter, at: try names.adapterPath(adapter), to: value, destination: names.service)
        } catch {
            if error.code == .unknownObject || error.code == .unknownInterface { throw .adapterNotFound(adapter) }
            throw .bluez(what: "setting \(adapter)'s \(name)", reason: error.description)
        }
    }

    // MARK: Exported objects

    private func serviceInterface(_ service: GattLayout.Service) throws(DBusError) -> DBusInterface {
        DBusInterface(
            names.gattService,
            properties: [
                DBusProperty(try MemberName("UUID"), value: .string(service.uuid)),
                DBusProperty(try MemberName("Primary"), value: .boolean(true)),
            ])
    }

    private func characteristicInterface(_ characteristic: GattLayout.Characteristic, servicePath: ObjectPath)
        throws(DBusError) -> DBusInterface
    {
        let path = characteristic.path
        let options = DBusArgument("options", "a{sv}")
        var properties = [
            DBusProperty(try MemberName("UUID"), value: .string(characteristic.uuid)),
            DBusProperty(try MemberName("Service"), value: .objectPath(servicePath)),
            DBusProperty(try MemberName("Flags"), value: .stringArray(characteristic.flags)),
            DBusProperty(names.value, value: .byteArray([])),
        ]
        var methods = [
            DBusMethod(
                try MemberName("ReadValue"), inputs: [options], outputs: [DBusArgument("value", "ay")]
            ) { [self] message in
                [.byteArray(try await read(path, options: message.arguments.last))]
            },
            DBusMethod(
                try MemberName("WriteValue"), inputs: [DBusArgument("value", "ay"), options]
            ) { [self] message in
                let bytes = message.arguments.first?.byteArrayValue ?? []
                try await writeValue(bytes, to: path, options: message.arguments.last)
                return []
            },
        ]
        if characteristic.canNotify {
            properties.append(DBusProperty(names.notifying, value: .boolean(false)))
            methods.append(DBusMethod(try MemberName("StartNotify")) { [self] _ in
                await setNotifying(true, path: path)
                return []
            })
            methods.append(DBusMethod(try MemberName("StopNotify")) { [self] _ in
                await setNotifying(false, path: path)
                return []
            })
        }
        let acquired = [DBusArgument("fd", "h"), DBusArgument("mtu", "q")]
        if characteristic.offersAcquireWrite {
            properties.append(DBusProperty(names.writeAcquired, value: .boolean(false)))
            methods.append(DBusMethod(try MemberName("AcquireWrite"), inputs: [options], outputs: acquired) {
                [self] message in
                try await acquire(path, forWriting: true, options: message.arguments.last)
            })
        }
        if characteristic.offersAcquireNotify {
            properties.append(DBusProperty(names.notifyAcquired, value: .boolean(false)))
            methods.append(DBusMethod(try MemberName("AcquireNotify"), inputs: [options], outputs: acquired) {
                [self] message in
                try await acquire(path, forWriting: false, options: message.arguments.last)
            })
        }
        return DBusInterface(names.gattCharacteristic, methods: methods, properties: properties)
    }

    private func advertisementInterface(_ firmware: any SimulatedFirmware) throws(DBusError) -> DBusInterface {
        DBusInterface(
            names.advertisement,
            methods: [DBusMethod(try MemberName("Release")) { _ in [] }],
            properties: [
                DBusProperty(try MemberName("Type"), value: .string("peripheral")),
                DBusProperty(try MemberName("ServiceUUIDs"), value: .stringArray(firmware.advertisedServiceUUIDs)),
                DBusProperty(try MemberName("LocalName"), value: .string(firmware.advertisedName)),
                DBusProperty(try MemberName("Discoverable"), value: .boolean(true)),
            ])
    }

    // MARK: Firmware events

    private func context() -> SimulatedContext {
        var flash = FlashTimings()
        flash.pageErase = .zero
        flash.wordWrite = .zero
        flash.firstObjectPreparation = .zero
        flash.hashPerKilobyte = .zero
        var context = SimulatedContext(
            now: elapsed, subscribed: subscribed, isBonded: peripheral.profile.isBonded, storage: peripheral.storage,
            flash: flash)
        // Zephyr splits an answer into notifications of ATT MTU − 3 bytes (`smp_bt.c` `smp_bt_conn_get_mtu`), but
        // this peripheral's notifications go out through bluetoothd, which gives the MTU with every write
        // (`src/gatt-database.c` `write_setup_cb`, option `mtu`) and, to a central that enabled multiple handle
        // value notifications (a BlueZ central does), sends each value in an ATT Handle Multiple Value
        // Notification (`send_notification_to_device` passes the client's NFY_MULTI feature to
        // `bt_gatt_server_send_notification`): 4 more bytes of handle and length. bluetoothd 5.66 cut a 244-byte
        // value at MTU 247 to 242 bytes there (seen in btmon in the VM: "Length: 0x00f2"), and the SMP frame was
        // lost. So the pieces are MTU − 5 bytes, which both kinds of notification carry whole.
        context.notificationLength = max(18, (report.mtu > 0 ? report.mtu : 23) - 5)
        return context
    }

    private func noteOptions(_ options: DBusValue?) {
        guard let dictionary = options?.stringKeyedDictionary else { return }
        if let mtu = dictionary["mtu"]?.integerValue { report.mtu = Int(mtu) }
        if let device = dictionary["device"]?.objectPathValue { central = device }
    }

    /// A WriteValue call: lost while the link is being lost on purpose.
    private func writeValue(_ bytes: [UInt8], to path: ObjectPath, options: DBusValue?) async throws(DBusError) {
        try write(bytes, to: path, options: options, acquired: false)
    }

    private func write(_ bytes: [UInt8], to path: ObjectPath, options: DBusValue?, acquired: Bool) throws(DBusError) {
        if linkLost {
            // A Write Request that arrives while the link is being lost: acknowledged (the reply goes out when
            // this returns), its answer lost, and only now is the link dropped, with nothing of ours pending.
            if !acquired, !disconnectRequested, layout?.characteristic(at: path)?.writeType == .request {
                requestDisconnect(after: .milliseconds(100), because: "a Write Request was acknowledged")
            }
            return
        }
        if !acquired {
            processAcquiredPackets()
            noteOptions(options)
        }
        guard let characteristic = layout?.characteristic(at: path) else {
            throw BlueZNames.error("Failed", "The service is gone")
        }
        if !acquired, writeSockets[path].map({ !$0.isClosed }) ?? false {
            throw BlueZNames.error("NotPermitted", "Write acquired")
        }
        report.writes += 1
        if acquired { report.acquiredWrites += 1 }
        report.longestWrite = max(report.longestWrite, bytes.count)
        if characteristic.writeType == .command {
            packetBytes += bytes.count
            if let limit = configuration.disconnectAfterPacketBytes, !disconnectedOnPurpose, packetBytes >= limit {
                disconnectedOnPurpose = true
                linkLost = true
                log("disconnecting the central after \(packetBytes) packet bytes")
                // The link must not go down while bluetoothd serves one of our Write Requests. bluetoothd 5.66 keeps
                // the ATT channel of a Write Request in the `async_write_op` of `src/shared/gatt-server.c`
                // `write_cb` without a reference. When the link drops before our WriteValue reply reaches it,
                // `src/gatt-database.c` `pending_disconnect_cb` has cleared the operation's `owner_queue`, so
                // `write_reply_cb` only logs "Pending write was canceled when object got removed" and never calls
                // `gatt_db_attribute_write_result`; 5 s later `src/shared/gatt-db.c` `write_timeout` completes the
                // write with -ETIMEDOUT and `write_complete_cb` sends an error response on the freed channel:
                // bluetoothd segfaults (seen once in the VM; cf. bluez/bluez#2447). A real device that drops the link
                // meets a user's bluetoothd in its GATT client role, which this does not change; the server role is
                // exercised only because this peripheral runs on bluetoothd. And Device1.Disconnect drops the link 2 s later (`src/device.c`
                // `device_request_disconnect`, DISCONNECT_TIMER), while the central keeps writing. So with a
                // characteristic that takes Write Requests, the link is dropped only once the central waits for an
                // answer that will not come: after the next Write Request is acknowledged (above; a Secure DFU
                // central asks for the checksum at the latest 1 s after its last packet, then waits 10 s), or after
                // 3 s without one. Data writes in between are lost, so to the target the link is still lost at
                // this byte. Without such a characteristic (SMP: Write Commands only, which never use the
                // channel after the write) the link is dropped at once.
                if layout?.characteristics.contains(where: { $0.writeType == .request }) ?? false {
                    let generation = self.generation
                    Task(executorPreference: loop) { [self, loop] in
                        await loop.sleep(until: .now + .seconds(3))
                        await requestDisconnectIfStillLost(generation: generation)
                    }
                } else {
                    requestDisconnect(after: .zero, because: "no characteristic takes Write Requests")
                }
            }
        }
        var context = context()
        var firmware = peripheral.firmware
        let refusedBefore = (firmware as? SimulatedZephyrTarget).map { $0.refusedWrites + $0.droppedFrames }
        let error = firmware.write(
            bytes, to: characteristic.simulatedUUID, type: characteristic.writeType, context: &context)
        if error == nil, let target = firmware as? SimulatedZephyrTarget,
            target.refusedWrites + target.droppedFrames == refusedBefore
        {
            smpTraffic.requestBytes(bytes)
        }
        peripheral.firmware = firmware
        peripheral.storage = context.storage
        report.violations += context.violations
        apply(context.effects)
        if let error {
            throw BlueZNames.error("Failed", Self.hex(error.code))
        }
    }

    private func read(_ path: ObjectPath, options: DBusValue?) throws(DBusError) -> [UInt8] {
        processAcquiredPackets()
        noteOptions(options)
        guard let characteristic = layout?.characteristic(at: path) else {
            throw BlueZNames.error("Failed", "The service is gone")
        }
        var context = context()
        var firmware = peripheral.firmware
        let result = firmware.read(characteristic.simulatedUUID, context: &context)
        peripheral.firmware = firmware
        peripheral.storage = context.storage
        apply(context.effects)
        switch result {
        case .success(let bytes): return bytes
        case .failure(let error): throw BlueZNames.error("Failed", Self.hex(error.code))
        }
    }

    private static func hex(_ code: UInt8) -> String {
        let digits = String(code, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }

    private func setNotifying(_ on: Bool, path: ObjectPath) {
        guard let characteristic = layout?.characteristic(at: path) else { return }
        if on { subscribed.insert(characteristic.simulatedUUID) } else { subscribed.remove(characteristic.simulatedUUID) }
        try? connection.setProperty(names.notifying, to: .boolean(on), interface: names.gattCharacteristic, at: path)
    }

    private func acquire(_ path: ObjectPath, forWriting: Bool, options: DBusValue?) throws -> [DBusValue] {
        processAcquiredPackets()
        noteOptions(options)
        guard let characteristic = layout?.characteristic(at: path) else {
            throw BlueZNames.error("Failed", "The service is gone")
        }
        let (socket, theirs) = try AcquiredSocket.makePair()
        let mtu = options?.stringKeyedDictionary?["mtu"]?.integerValue.flatMap { UInt16(exactly: $0) } ?? 23
        let wanted = generation
        if forWriting {
            writeSockets[path]?.close()
            writeSockets[path] = socket
            socket.watch(
                onReadable: { Task(executorPreference: self.loop) { await self.processAcquiredPackets() } },
                onClosed: {
                    Task(executorPreference: self.loop) { await self.acquiredSocketClosed(path, forWriting: true, generation: wanted) }
                })
            try? connection.setProperty(names.writeAcquired, to: .boolean(true), interface: names.gattCharacteristic, at: path)
        } else {
            notifySockets[path]?.close()
            notifySockets[path] = socket
            subscribed.insert(characteristic.simulatedUUID)
            socket.watch(
                onReadable: { _ = socket.drain() },
                onClosed: {
                    Task(executorPreference: self.loop) { await self.acquiredSocketClosed(path, forWriting: false, generation: wanted) }
                })
            try? connection.setProperty(names.notifyAcquired, to: .boolean(true), interface: names.gattCharacteristic, at: path)
        }
        log("\(forWriting ? "AcquireWrite" : "AcquireNotify") on \(characteristic.simulatedUUID), mtu \(mtu)")
        return [.unixFileDescriptor(OwnedFileDescriptor(taking: theirs)), .uint16(mtu)]
    }

    private func acquiredSocketClosed(_ path: ObjectPath, forWriting: Bool, generation: Int) {
        guard generation == self.generation else { return }
        if forWriting {
            processAcquiredPackets()
            if writeSockets[path]?.isClosed ?? false { writeSockets[path] = nil }
            try? connection.setProperty(names.writeAcquired, to: .boolean(false), interface: names.gattCharacteristic, at: path)
        } else {
            if notifySockets[path]?.isClosed ?? false {
                notifySockets[path] = nil
                if let characteristic = layout?.characteristic(at: path) { subscribed.remove(characteristic.simulatedUUID) }
            }
            try? connection.setProperty(names.notifyAcquired, to: .boolean(false), interface: names.gattCharacteristic, at: path)
        }
    }

    /// Hands every packet waiting in AcquireWrite sockets to the firmware, in arrival order.
    private func processAcquiredPackets() {
        for (path, socket) in writeSockets {
            for packet in socket.drain() {
                do {
                    try write(packet, to: path, options: nil, acquired: true)
                } catch {
                    log("acquired write refused: \(error)")
                }
            }
        }
    }

    private func closeSockets() {
        for socket in writeSockets.values { socket.close() }
        for socket in notifySockets.values { socket.close() }
        writeSockets = [:]
        notifySockets = [:]
    }

    private func apply(_ effects: [SimulatedEffect]) {
        // Answers go out after the write's own reply, as the SoftDevice acknowledges first.
        let soonest = ContinuousClock.now.advanced(by: .milliseconds(1))
        for effect in effects {
            switch effect {
            case .notify(let characteristic, let bytes, let delay):
                let due = max(soonest, ContinuousClock.now.advanced(by: delay))
                notifications.yield(.notification(
                    PendingNotification(due: due, generation: generation, characteristic: characteristic, bytes: bytes)))
            case .reboot(let target, let delay):
                guard !isRebooting else { continue }
                isRebooting = true
                notifications.yield(.reboot(target, due: ContinuousClock.now.advanced(by: max(delay, .milliseconds(1)))))
            }
        }
    }

    private func send(_ pending: PendingNotification) {
        guard pending.generation == generation, subscribed.contains(pending.characteristic),
            let characteristic = layout?.characteristic(simulatedUUID: pending.characteristic)
        else { return }
        report.notifications += 1
        if peripheral.firmware is SimulatedZephyrTarget { smpTraffic.responseBytes(pending.bytes) }
        if let socket = notifySockets[characteristic.path], !socket.isClosed {
            if socket.send(pending.bytes) { report.acquiredNotifications += 1 }
            return
        }
        try? connection.setProperty(
            names.value, to: .byteArray(pending.bytes), interface: names.gattCharacteristic, at: characteristic.path)
    }

    // MARK: Links and reboots

    private func deviceChanged(_ change: DBusPropertiesChanged) {
        guard change.interface == names.device.rawValue, let adapter = registeredAdapter,
            change.path.rawValue.hasPrefix(BlueZNames.root + "/\(adapter)/"), let connected = change.changed["Connected"]?.boolValue
        else { return }
        centralConnected = connected
        if connected {
            central = change.path
            log("central connected: \(change.path)")
        } else if !isRebooting {
            log("central disconnected: \(change.path)")
            linkDropped()
            writeReport()
        }
    }

    private func linkDropped() {
        processAcquiredPackets()
        linkLost = false
        disconnectRequested = false
        report.disconnections += 1
        var context = context()
        var firmware = peripheral.firmware
        firmware.connectionDropped(context: &context)
        peripheral.firmware = firmware
        peripheral.storage = context.storage
        report.violations += context.violations
        smpTraffic.linkDropped()
        subscribed = []
        closeSockets()
        if let layout {
            for characteristic in layout.characteristics where characteristic.canNotify {
                try? connection.setProperty(names.notifying, to: .boolean(false), interface: names.gattCharacteristic, at: characteristic.path)
            }
        }
    }

    /// Asks bluetoothd, once, to drop the link that is being lost on purpose, `delay` from now: long enough for
    /// the reply to the WriteValue call being answered to go out first (it is sent when the handler returns).
    private func requestDisconnect(after delay: Duration, because reason: String) {
        guard linkLost, !disconnectRequested else { return }
        disconnectRequested = true
        log("asking bluetoothd to drop the link: \(reason)")
        Task(executorPreference: loop) { [self, loop] in
            if delay > .zero { await loop.sleep(until: .now + delay) }
            await disconnectCentral()
        }
    }

    /// The fallback when no Write Request came after the link was "lost": the central waits for something.
    private func requestDisconnectIfStillLost(generation: Int) {
        guard generation == self.generation else { return }
        requestDisconnect(after: .zero, because: "no Write Request in 3 s")
    }

    /// Asks bluetoothd to drop the link to the central (Device1.Disconnect on our adapter's side).
    private func disconnectCentral() async {
        guard let central, let disconnect = try? MemberName("Disconnect") else { return }
        do {
            _ = try await connection.call(
                destination: names.service, path: central, interface: names.device, member: disconnect)
        } catch {
            log("Disconnect of \(central) failed: \(error)")
        }
    }

    private func reboot(into target: SimulatedBootTarget) async {
        log("reboot into \(target)")
        await disconnectCentral()
        linkDropped()
        central = nil
        centralConnected = false
        await unregister()
        peripheral.boot(into: target, at: elapsed)
        isRebooting = false
        do {
            try await registerCurrentRole()
        } catch {
            log("error: \(error)")
        }
    }

    // MARK: Report

    private func writeReport() {
        guard let path = configuration.reportPath else { return }
        report.update(storage: peripheral.storage)
        if let target = peripheral.firmware as? SimulatedZephyrTarget {
            report.updateSMP(target: target, traffic: smpTraffic)
        }
        do {
            try ReportFile.write(report, to: path)
        } catch {
            log("error: \(error)")
        }
    }
}
