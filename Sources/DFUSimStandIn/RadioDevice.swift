import DFUCore
import DFUCrypto
import DFUSimulator

/// One simulated device on the air: its firmware and flash, its modelled link time, the faults
/// it is subject to, and the statistics `--report` prints. Knows nothing about D-Bus.
struct RadioDevice: Sendable {
    /// Something the device does after a write, in order.
    enum Outcome: Sendable, Equatable {
        /// A notification or indication on `characteristic` (upper-case UUID), held back `delay` on the
        /// wall clock (a `late-response` fault).
        case notify(characteristic: String, bytes: [UInt8], delay: Duration)
        /// The link drops; the device boots into `target` (nil: it just drops, e.g. a fault), `after` the write that
        /// caused it on the wall clock (the firmware's own delay: Zephyr's MCUMGR_GRP_OS_RESET_MS, a bootloader's
        /// reset after its last answer; zero for a fault).
        case drop(reboot: SimulatedBootTarget?, after: Duration)
        /// A host fault fires: the adapter disappears (`vanishes`), bluetoothd restarts or stops.
        case host(HostEvent)
    }

    /// A fault of the host rather than of the link.
    enum HostEvent: Sendable, Equatable {
        /// The adapter is removed (unplugged), with every device object on it.
        case adapterVanishes
        /// bluetoothd leaves the bus and comes back with no devices and no links.
        case restarts
        /// bluetoothd powers its adapters down and leaves the bus for good.
        case quits
    }

    let spec: SimulatedDeviceSpec
    let link: LinkModel
    /// The device's GATT UUIDs (to tell packets and control point writes apart).
    var uuids: DFUServiceUUIDs { spec.uuids }
    private(set) var peripheral: SimulatedPeripheral
    private(set) var statistics = DeviceStatistics()
    /// Protocol invariants the client broke, as the simulated firmware reported them, in order.
    private(set) var violations: [String] = []
    /// Whether a link is up (and its generation, so late events of an old link are ignored).
    private(set) var linkGeneration = 0
    private(set) var isConnected = false
    private(set) var subscribed: Set<String> = []
    /// The device's clock: link-paced time, never behind the wall clock (so that a client that
    /// waits in real time lets the flash drain, as it would on a real device).
    private var modelled: Duration = .zero
    /// Time the device's clock jumped to catch up with the wall clock (not link time).
    private var idle: Duration = .zero
    private var lastWall = ContinuousClock.now
    private var lastModelled: Duration = .zero
    private var faults: SimulatedFaults
    /// Control point notifications (counted from 1) that are lost on the air.
    private let droppedResponses: Set<Int>
    /// Control point notifications (counted from 1) that reach the client late, and by how much.
    private let lateResponses: [Int: Duration]
    private var responseCount = 0
    /// Host faults that fire once when this many packet bytes reached the device.
    private var pendingHostEvents: [(bytes: Int, event: HostEvent)]
    private var packetWrites = 0
    private var packetBytes = 0
    private var byteFaultFired = false
    /// Whether the device has lost power (`power-off-after-bytes`): it neither advertises nor answers any more.
    private(set) var isPoweredOff = false
    /// Packet bytes after which the device loses power.
    private let powerOffAfterPacketBytes: Int?
    private var requestFaultFired = false
    private var requestCounts: [UInt8: Int] = [:]
    private var firmwareDrops = 0
    private var tracker = TransferTracker()
    /// SMP requests, answers and retransmissions (SMP devices).
    private var smpTraffic = SMPTrafficCounter()
    private var eventStart: Duration = .zero
    private var eventCursor: Duration = .zero
    private var packetsInEvent = Int.max
    /// Link time the device's writes took that the wall clock has not caught up with yet (it drains as
    /// real time passes): how far behind a device answering at the link's pace is.
    private var linkDebt: Duration = .zero
    private var linkDebtUpdated = ContinuousClock.now
    /// When the last notification held back for the link's pace will have been delivered.
    private var pacedDue = ContinuousClock.now
    /// When the client last asked to create a data object whose first packet has not come yet.
    private var dataObjectCreated: ContinuousClock.Instant?

    /// Whether an SMP target's answers wait for the modelled link (`--link smp_paced=yes`).
    let pacesSMP: Bool
    /// The modelled time of the latest answer (paced SMP answers do not hold the write clock back).
    private var latestAnswer: Duration = .zero
    /// With paced SMP answers: the link time the wall clock had not caught up with when the clock was last read, so
    /// that catching up does not count that link time twice.
    private var debtAtRefresh: Duration = .zero

    init(spec: SimulatedDeviceSpec, link: LinkModel, faults: StandInFaults, pacesSMP: Bool = false) {
        self.spec = spec
        self.pacesSMP = pacesSMP
        self.link = link
        self.faults = faults.link
        droppedResponses = faults.droppedResponses
        lateResponses = faults.lateResponses
        var events: [(bytes: Int, event: HostEvent)] = []
        if let bytes = faults.adapterVanishesAfterPacketBytes { events.append((bytes, .adapterVanishes)) }
        if let bytes = faults.hostRestartsAfterPacketBytes { events.append((bytes, .restarts)) }
        if let bytes = faults.hostQuitsAfterPacketBytes { events.append((bytes, .quits)) }
        powerOffAfterPacketBytes = faults.devicePowersOffAfterPacketBytes
        pendingHostEvents = events
        peripheral = SimulatedPeripheral(
            profile: spec.profile, storage: spec.storage,
            startInBootloader: spec.kind.startsInBootloader)
    }

    /// The address it advertises with now.
    var address: DFUDeviceAddress { peripheral.address }
    /// The firmware running now.
    var firmware: any SimulatedFirmware { peripheral.firmware }
    /// Whether its answers are SMP answers held to the link's pace: their delays count from the write, each on its own.
    var pacesAnswers: Bool { pacesSMP && peripheral.firmware is SimulatedZephyrTarget }

    /// Takes one connection attempt's fault: true when the attempt must fail.
    mutating func consumeConnectionFailure() -> Bool {
        guard faults.failedConnections > 0 else { return false }
        faults.failedConnections -= 1
        return true
    }

    /// Counts one client call in the statistics (`\.acquireWrites`, `\.startNotifies`, …).
    mutating func count(_ call: WritableKeyPath<DeviceStatistics, Int>) {
        statistics[keyPath: call] += 1
    }

    /// A link comes up.
    mutating func connect() -> Int {
        catchUp()
        linkGeneration += 1
        isConnected = true
        subscribed = []
        statistics.connections += 1
        modelled += link.connectionInterval * link.setupIntervals
        refreshModelled()
        return linkGeneration
    }

    /// The client enabled or disabled notifications (one CCCD write in modelled time).
    mutating func setSubscribed(_ characteristic: String, _ on: Bool) {
        catchUp()
        if on { subscribed.insert(characteristic.uppercased()) } else { subscribed.remove(characteristic.uppercased()) }
        modelled += link.connectionInterval * 2
        refreshModelled()
    }

    /// The link drops; the device reboots into `target` when given.
    mutating func drop(reboot target: SimulatedBootTarget?) {
        guard isConnected else { return }
        isConnected = false
        var context = makeContext(at: modelled)
        var firmware = peripheral.firmware
        firmware.connectionDropped(context: &context)
        peripheral.firmware = firmware
        peripheral.storage = context.storage
        violations += context.violations
        smpTraffic.linkDropped()
        if let target {
            collectFirmwareDrops()
            peripheral.boot(into: target, at: modelled)
            modelled += link.bootTime
        }
        subscribed = []
        refreshModelled()
    }

    /// The device resets into `target` while no client is connected (its reset was due after the link had gone).
    mutating func reboot(into target: SimulatedBootTarget) {
        collectFirmwareDrops()
        peripheral.boot(into: target, at: modelled)
        modelled += link.bootTime
        refreshModelled()
    }

    /// A read.
    mutating func read(_ characteristic: String) -> Result<[UInt8], SimulatedATTError> {
        catchUp()
        modelled += link.connectionInterval * 2
        var context = makeContext(at: modelled)
        var firmware = peripheral.firmware
        let result = firmware.read(characteristic.uppercased(), context: &context)
        peripheral.firmware = firmware
        peripheral.storage = context.storage
        violations += context.violations
        refreshModelled()
        return result
    }

    /// A write from the client; returns the ATT error (nil: accepted) and what follows, in order.
    mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType)
        -> (error: SimulatedATTError?, outcomes: [Outcome])
    {
        catchUp()
        let uuid = characteristic.uppercased()
        let wallNow = ContinuousClock.now
        linkDebt = max(.zero, linkDebt - (wallNow - linkDebtUpdated))
        linkDebtUpdated = wallNow
        let beforeExchange = modelled
        let arrival = advance(payload: bytes.count, request: type == .request)
        linkDebt += modelled - beforeExchange
        let afterExchange = modelled
        // SMP has one characteristic for every request: its writes count as packets for the link faults.
        let isSMP = spec.kind.isSMP && uuid == uuids.smpCharacteristic.uppercased()
        guard let (delivered, dropAfter, hostEvent) = applyFaults(to: bytes, on: uuid, isSMP: isSMP) else {
            return (nil, [])
        }
        var context = makeContext(at: arrival)
        var firmware = peripheral.firmware
        // A Legacy bootloader's answers leave at the link's pace: 20-byte packets cannot reach it faster
        // than the modelled connection events carry them, so its receipts and responses are held until the
        // wall clock reaches their modelled time.
        // So do an SMP target's with `smp_paced`: its requests then overlap in the model as far as the client's
        // window and the target's buffers let them (the write clock does not wait for the answers).
        let overlapsRequests = pacesSMP && firmware is SimulatedZephyrTarget
        let pacedToLink = firmware is SimulatedLegacyBootloader || overlapsRequests
        let refusedBefore = (firmware as? SimulatedZephyrTarget).map { $0.refusedWrites + $0.droppedFrames }
        let error = firmware.write(delivered, to: uuid, type: type, context: &context)
        if isSMP, error == nil, let target = firmware as? SimulatedZephyrTarget,
            target.refusedWrites + target.droppedFrames == refusedBefore
        {
            smpTraffic.requestBytes(delivered)
        }
        peripheral.firmware = firmware
        peripheral.storage = context.storage
        violations += context.violations
        var outcomes: [Outcome] = []
        var notifications: [(Duration, String, [UInt8])] = []
        var reboot: (SimulatedBootTarget, Duration)?
        for effect in context.effects {
            switch effect {
            case .notify(let target, let payload, let delay):
                notifications.append(
                    (arrival + delay + faults.responseDelay + link.connectionInterval, target, payload))
            case .reboot(let target, let delay):
                let at = arrival + delay + faults.responseDelay
                if reboot.map({ at < $0.1 }) ?? true { reboot = (target, at) }
            }
        }
        if let queued = reboot, let last = notifications.map(\.0).max() {
            // The device resets only after the answers it queued before went on the air: the final
            // Execute's response precedes the settings write and the reset whatever the interval
            // (SDK 15–17 `on_data_obj_execute_request_sched`, then `on_dfu_complete`).
            reboot = (queued.0, max(queued.1, last))
        }
        for (time, target, payload) in notifications.sorted(by: { $0.0 < $1.0 }) {
            if overlapsRequests { latestAnswer = max(latestAnswer, time) } else { modelled = max(modelled, time) }
            observe(notification: payload, on: target)
            var delay: Duration = .zero
            if isControlPointUUID(target) {
                responseCount += 1
                if droppedResponses.contains(responseCount) { continue }
                delay = lateResponses[responseCount] ?? .zero
            }
            if pacedToLink {
                // The stand-in delivers notifications one after another, each after its delay: count this
                // one's delay from when the one before it will have gone.
                let now = ContinuousClock.now
                let due = now + linkDebt + max(.zero, time - afterExchange)
                let start = max(now, pacedDue)
                delay = max(delay, due - start)
                pacedDue = start + delay
                // Paced SMP answers are queued with their time from now (the stand-in's paced queue keeps the order).
                if overlapsRequests { delay = pacedDue - now }
            }
            outcomes.append(.notify(characteristic: target, bytes: payload, delay: delay))
        }
        if let reboot {
            modelled = max(modelled, reboot.1)
            outcomes.append(.drop(reboot: reboot.0, after: max(.zero, reboot.1 - arrival)))
        } else if dropAfter {
            outcomes.append(.drop(reboot: nil, after: .zero))
        }
        if let hostEvent { outcomes.append(.host(hostEvent)) }
        refreshModelled()
        return (error, outcomes)
    }

    /// What the link's faults make of a write before the firmware sees it (nil: the packet is dropped), and
    /// the statistics and request tracking it updates: whether the link drops after it, and the host event
    /// its byte count brings.
    private mutating func applyFaults(to bytes: [UInt8], on uuid: String, isSMP: Bool)
        -> (delivered: [UInt8], dropAfter: Bool, hostEvent: HostEvent?)?
    {
        var delivered = bytes
        var dropAfter = false
        var hostEvent: HostEvent?
        let isPacket = uuid == uuids.securePacket.uppercased() || uuid == uuids.legacyPacket.uppercased() || isSMP
        let isControlPoint =
            uuid == uuids.secureControlPoint.uppercased() || uuid == uuids.legacyControlPoint.uppercased()
        if isPacket {
            packetWrites += 1
            if faults.droppedPackets.contains(packetWrites) {
                statistics.droppedPackets += 1
                return nil
            }
            if faults.corruptedPackets.contains(packetWrites), !delivered.isEmpty { delivered[0] ^= 0xFF }
            packetBytes += bytes.count
            if let limit = faults.disconnectAfterPacketBytes, !byteFaultFired, packetBytes >= limit {
                byteFaultFired = true
                dropAfter = true
            }
            if let limit = powerOffAfterPacketBytes, !isPoweredOff, packetBytes >= limit {
                isPoweredOff = true
                dropAfter = true
            }
            if let index = pendingHostEvents.firstIndex(where: { packetBytes >= $0.bytes }) {
                hostEvent = pendingHostEvents.remove(at: index).event
            }
            if !isSMP { tracker.packet(bytes) }
            if let created = dataObjectCreated {
                statistics.dataObjectWaits.append(Self.milliseconds(created.duration(to: .now)))
                dataObjectCreated = nil
            }
        } else if isControlPoint, let first = bytes.first {
            // Legacy Reset (06), Secure Abort (0C).
            let legacy = uuid == uuids.legacyControlPoint.uppercased()
            if (legacy && first == 0x06) || (!legacy && first == 0x0C) { statistics.transfersAbandoned += 1 }
            if let trigger = faults.disconnectAtRequest, !requestFaultFired {
                requestCounts[first, default: 0] += 1
                if first == trigger.opCode, requestCounts[first] == trigger.occurrence {
                    requestFaultFired = true
                    dropAfter = true
                }
            }
            if uuid == uuids.secureControlPoint.uppercased() {
                tracker.request(bytes)
                if bytes.count >= 2, first == 0x01, bytes[1] == 0x02 { dataObjectCreated = .now }
            }
        }
        return (delivered, dropAfter, hostEvent)
    }

    /// The device's entry in the report.
    var report: StandInReport.Device {
        var images: [String: StandInReport.Image] = [:]
        if let application = peripheral.storage.application {
            images["application"] = StandInReport.Image(bytes: application)
        }
        if let softdevice = peripheral.storage.softdevice {
            images["softdevice"] = StandInReport.Image(bytes: softdevice)
        }
        if let bootloader = peripheral.storage.bootloader {
            images["bootloader"] = StandInReport.Image(bytes: bootloader)
        }
        var stats = statistics
        stats.droppedPackets += firmwareDrops + currentFirmwareDrops
        var slots: [StandInReport.Slot]?
        if let target = peripheral.firmware as? SimulatedZephyrTarget {
            // An SMP device's flash is its MCUboot slots; the nRF5 parts do not apply.
            images = [:]
            slots = StandInReport.Slot.list(of: target)
            stats.smp = SMPStatistics(traffic: smpTraffic, target: target)
        }
        return StandInReport.Device(
            address: spec.profile.address.description, kind: spec.kind.rawValue, images: images,
            stats: stats, violations: violations, slots: slots)
    }

    /// A notification of the device reached the client (or would have, had it subscribed).
    mutating func delivered(_ bytes: [UInt8], on characteristic: String) {
        if spec.kind.isSMP, characteristic.uppercased() == uuids.smpCharacteristic.uppercased() {
            smpTraffic.responseBytes(bytes)
        }
    }

    private func isControlPointUUID(_ uuid: String) -> Bool {
        let upper = uuid.uppercased()
        return upper == uuids.secureControlPoint.uppercased() || upper == uuids.legacyControlPoint.uppercased()
    }

    // MARK: - Modelled time

    /// Moves the modelled clock for one exchange and returns when the PDU reaches the device.
    ///
    /// Writes without response share connection events (as many as fit); a request goes in the
    /// next event and its response in the one after, so the client's next PDU waits a further event.
    private mutating func advance(payload: Int, request: Bool) -> Duration {
        let exchange = link.exchangeTime(attPayload: payload)
        if !request, packetsInEvent < link.fullPacketsPerEvent,
            eventCursor + exchange <= eventStart + link.usableEventLength, eventCursor >= modelled - exchange
        {
            packetsInEvent += 1
            eventCursor += exchange
            modelled = max(modelled, eventCursor)
            return eventCursor
        }
        let start = max(modelled, eventStart + link.connectionInterval)
        eventStart = start
        eventCursor = start + exchange
        if request {
            // The response comes in the next event; the client's next PDU goes in the event after.
            packetsInEvent = Int.max
            eventStart = start + link.connectionInterval
            modelled = eventStart + exchange
        } else {
            packetsInEvent = 1
            modelled = eventCursor
        }
        return eventCursor
    }

    private mutating func refreshModelled() {
        lastModelled = modelled
        lastWall = ContinuousClock.now
        debtAtRefresh = pacesAnswers ? linkDebt : .zero
        statistics.modelledMilliseconds = Self.milliseconds(max(modelled, latestAnswer) - idle)
    }

    /// Whole milliseconds of a duration.
    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Moves the device's clock forward by the real time the client spent idle since the last event
    /// (beyond what the link model already accounted for).
    private mutating func catchUp() {
        let now = ContinuousClock.now
        // With paced SMP answers the modelled clock at the last reading was `debtAtRefresh` ahead of the wall clock
        // (link time not yet elapsed): the wall clock's time since then moves it only beyond that.
        let floor = lastModelled + (now - lastWall) - debtAtRefresh
        if floor > modelled {
            // Paced SMP answers still on their way keep the link busy: only the time beyond them is idle.
            idle += floor - max(modelled, min(floor, latestAnswer))
            modelled = floor
        }
        lastWall = now
        lastModelled = modelled
        debtAtRefresh = pacesAnswers ? max(.zero, modelled - floor) : .zero
    }

    private func makeContext(at time: Duration) -> SimulatedContext {
        var context = SimulatedContext(
            now: time, subscribed: subscribed, isBonded: isBonded, storage: peripheral.storage, flash: link.flash)
        // A notification carries at most ATT MTU − 3 bytes (`smp_bt.c` `smp_bt_conn_get_mtu`).
        context.notificationLength = link.maximumWriteLength
        // Its notifications reach the client one interval after they are queued (not at an event's start): the
        // acknowledgement is taken at its latest.
        let acknowledgement = faults.responseDelay + link.latestNotificationAcknowledgement
        context.notificationAcknowledged = { $0 + acknowledgement }
        return context
    }

    /// Whether the host holds a bond with the device (set by Pair).
    var isBonded = false

    private var currentFirmwareDrops: Int {
        (peripheral.firmware as? SimulatedSecureBootloader)?.droppedPackets ?? 0
    }

    private mutating func collectFirmwareDrops() { firmwareDrops += currentFirmwareDrops }

    // MARK: - Statistics from the answers

    private mutating func observe(notification bytes: [UInt8], on characteristic: String) {
        if characteristic == uuids.secureControlPoint.uppercased() {
            switch tracker.response(bytes) {
            case .executed: statistics.objectsExecuted += 1
            case .checksumMismatch: statistics.crcFailures += 1
            case .none: break
            }
        } else if characteristic == uuids.legacyControlPoint.uppercased(), bytes.count >= 3, bytes[0] == 0x10,
            bytes[1] == 0x04
        {
            if bytes[2] == 0x01 { statistics.objectsExecuted += 1 }
            if bytes[2] == 0x05 { statistics.crcFailures += 1 }
        }
    }
}
