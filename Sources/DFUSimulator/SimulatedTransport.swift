public import DFUCore
import Synchronization

/// The in-memory ``DFUTransport``: connects the runner to simulated devices over a modelled link,
/// in virtual time.
///
/// Writes are paced to connection events (``LinkModel``); answers arrive in the next event;
/// the virtual clock moves as the runner waits. Link faults (``SimulatedFaults``) are applied
/// here; target faults are in the firmware configurations.
public final class SimulatedTransport: DFUTransport {
    /// The shared virtual clock (give the same one to the runner).
    public let clock: VirtualClock
    /// The link figures.
    public let link: LinkModel
    private let air: Mutex<Air>

    private struct PendingNotification {
        var time: Duration
        var characteristic: String
        var bytes: [UInt8]
    }

    private struct Connection {
        var index: Int
        var start: Duration
        var uuids: DFUServiceUUIDs
        var real: Set<DFUEndpoint>
        var subscribed: Set<String> = []
        var pending: [PendingNotification] = []
        var dropAt: Duration?
        var pendingBoot: (target: SimulatedBootTarget, at: Duration)?
        var lastEvent: Int64 = -1
        var lastEnd: Duration = .zero
        var packetsInEvent = 0
    }

    private struct Air {
        var peripherals: [SimulatedPeripheral]
        var faults: SimulatedFaults
        var connection: Connection?
        var cache: [DFUDeviceAddress: Set<DFUEndpoint>] = [:]
        var trace: [SimulatedTraceEntry] = []
        var violations: [String] = []
        var packetWrites = 0
        var packetBytes = 0
        var requestCounts: [UInt8: Int] = [:]
        var byteFaultFired = false
        var requestFaultFired = false
        var droppedByTargets = 0
        var notifications = 0
    }

    /// A radio with these devices in range.
    public init(peripherals: [SimulatedPeripheral], link: LinkModel = LinkModel(),
                faults: SimulatedFaults = SimulatedFaults(), clock: VirtualClock = VirtualClock()) {
        self.clock = clock
        self.link = link
        air = Mutex(Air(peripherals: peripherals, faults: faults))
    }

    /// A snapshot of a device (its flash shows what was installed).
    public func peripheral(_ index: Int = 0) -> SimulatedPeripheral { air.withLock { $0.peripherals[index] } }

    /// Protocol invariants the client broke, as reported by the simulated firmware.
    public var violations: [String] { air.withLock { $0.violations } }

    /// Packets the simulated bootloaders dropped because all their receive buffers were busy.
    public var packetsDroppedByTargets: Int { air.withLock { $0.droppedByTargets } }

    /// Everything seen so far.
    public var trace: [SimulatedTraceEntry] { air.withLock { $0.trace } }

    /// Replaces the link faults (e.g. between two runs).
    public func setFaults(_ faults: SimulatedFaults) { air.withLock { $0.faults = faults } }

    // MARK: - DFUTransport

    /// Scans (in virtual time) for a matching device, connects and discovers its services.
    public func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        let now = clock.elapsed
        let result: Result<(DFUPeer, Duration), DFUTransportError> = air.withLock { air in
            if air.connection != nil { Self.drop(&air, at: now, link: link) }
            // The selected device heard within the scan wins; a bootloader at a fallback address only without one.
            var best: (index: Int, time: Duration, rank: Int)?
            for (index, device) in air.peripherals.enumerated() {
                let firmware = device.firmware
                guard firmware.isAdvertising, let match = parameters.selector.match(address: device.address, name: firmware.advertisedName,
                                                            serviceUUIDs: firmware.advertisedServiceUUIDs) else { continue }
                let seen = max(now, device.availableFrom) + link.discoveryDelay
                guard seen <= now + parameters.scanTimeout else { continue }
                let rank = match == .fallback ? 1 : 0
                if let current = best, (current.rank, current.time) <= (rank, seen) { continue }
                best = (index, seen, rank)
            }
            guard let best else {
                return .failure(.deviceNotFound)
            }
            let connected = best.time + link.connectionInterval * link.setupIntervals
            if air.faults.failedConnections > 0 {
                air.faults.failedConnections -= 1
                return .failure(.failed("the connection failed to be established (simulated)"))
            }
            let device = air.peripherals[best.index]
            let real = Self.endpoints(of: device.firmware, uuids: parameters.uuids)
            var reported = real
            if air.faults.staleServicesAfterJump, !parameters.discardCachedServices,
                let cached = air.cache[device.address], cached != real {
                reported = cached
            } else {
                air.cache[device.address] = real
            }
            air.connection = Connection(index: best.index, start: connected, uuids: parameters.uuids, real: real)
            air.trace.append(SimulatedTraceEntry(time: connected, event: .connected(device.address)))
            // Simulated GATT tables omit GAP and GATT, so every service counts.
            let peer = DFUPeer(address: device.address, name: device.firmware.advertisedName, endpoints: reported,
                               serviceCount: device.firmware.services.count,
                               maximumWriteLength: link.maximumWriteLength, isBonded: device.profile.isBonded)
            return .success((peer, connected))
        }
        switch result {
        case .success(let (peer, time)):
            clock.advance(to: time)
            return peer
        case .failure(let error):
            clock.advance(to: now + (error == .deviceNotFound ? parameters.scanTimeout : parameters.connectTimeout))
            throw error
        }
    }

    /// Writes the CCCD (one request/response exchange).
    public func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try exchange(endpoint: endpoint, bytes: [0x01, 0x00]) { air, connection, characteristic, arrival in
            guard connection.real.contains(endpoint) else { return .attError(SimulatedATTError.attributeNotFound.code) }
            let device = air.peripherals[connection.index]
            if let error = device.firmware.subscriptionError(for: characteristic, isBonded: device.profile.isBonded) {
                return .attError(error.code)
            }
            air.connection?.subscribed.insert(characteristic)
            return nil
        }
    }

    /// Writes to the device. A write without response returns when its packet goes on the air, so the
    /// sender is paced by the link (as with a socket from `AcquireWrite`) and can only outrun the flash.
    public func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        try exchange(endpoint: endpoint, bytes: bytes, withoutResponse: type == .withoutResponse) {
            air, connection, characteristic, arrival in
            var delivered = bytes
            air.trace.append(SimulatedTraceEntry(time: arrival, event: .write(endpoint, bytes)))
            let isPacket = endpoint == .securePacket || endpoint == .legacyPacket || endpoint == .smp
            var dropAfter = false
            if isPacket {
                air.packetWrites += 1
                if air.faults.droppedPackets.contains(air.packetWrites) {
                    air.trace.append(SimulatedTraceEntry(time: arrival, event: .lostOnAir(endpoint, bytes)))
                    return nil
                }
                if air.faults.corruptedPackets.contains(air.packetWrites), !delivered.isEmpty { delivered[0] ^= 0xFF }
                air.packetBytes += bytes.count
                if let limit = air.faults.disconnectAfterPacketBytes, !air.byteFaultFired, air.packetBytes >= limit {
                    air.byteFaultFired = true
                    dropAfter = true
                }
            } else if let first = bytes.first, let trigger = air.faults.disconnectAtRequest, !air.requestFaultFired,
                endpoint == .secureControlPoint || endpoint == .legacyControlPoint {
                air.requestCounts[first, default: 0] += 1
                if first == trigger.opCode, air.requestCounts[first] == trigger.occurrence {
                    air.requestFaultFired = true
                    if trigger.beforeDelivery {
                        air.connection?.dropAt = arrival
                        return .disconnected
                    }
                    dropAfter = true
                }
            }
            guard connection.real.contains(endpoint) else { return .attError(SimulatedATTError.attributeNotFound.code) }
            let error = Self.deliver(&air, link: link, at: arrival) { firmware, context in
                firmware.write(delivered, to: characteristic, type: type == .withResponse ? .request : .command,
                               context: &context)
            }
            if dropAfter { air.connection?.dropAt = arrival }
            return error.map { .attError($0.code) }
        }
    }

    /// Reads a characteristic (one exchange).
    public func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] {
        var value: [UInt8] = []
        try exchange(endpoint: endpoint, bytes: []) { air, connection, characteristic, arrival in
            guard connection.real.contains(endpoint) else { return .attError(SimulatedATTError.attributeNotFound.code) }
            var result: Result<[UInt8], SimulatedATTError> = .failure(.attributeNotFound)
            _ = Self.deliver(&air, link: link, at: arrival) { firmware, context in
                result = firmware.read(characteristic, context: &context)
                return nil
            }
            switch result {
            case .success(let bytes):
                value = bytes
                return nil
            case .failure(let error):
                return .attError(error.code)
            }
        }
        return value
    }

    /// The next notification, in virtual time.
    public func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        let now = clock.elapsed
        let deadline = now + timeout
        let outcome: (Result<DFUNotification, DFUTransportError>, Duration) = air.withLock { air in
            guard var connection = air.connection else { return (.failure(.disconnected), now) }
            connection.pending.sort { $0.time < $1.time }
            if let first = connection.pending.first, first.time <= deadline,
                connection.dropAt.map({ first.time <= $0 }) ?? true {
                connection.pending.removeFirst()
                air.connection = connection
                let endpoint = Self.endpoint(for: first.characteristic, uuids: connection.uuids) ?? .secureControlPoint
                air.trace.append(SimulatedTraceEntry(time: max(now, first.time), event: .notification(endpoint, first.bytes)))
                return (.success(DFUNotification(endpoint: endpoint, bytes: first.bytes)), max(now, first.time))
            }
            if let dropAt = connection.dropAt, dropAt <= deadline {
                Self.drop(&air, at: max(now, dropAt), link: link)
                return (.failure(.disconnected), max(now, dropAt))
            }
            return (.failure(.timedOut), deadline)
        }
        clock.advance(to: outcome.1)
        return try outcome.0.get()
    }

    /// Waits (in virtual time) for the device to drop the link.
    public func waitForDisconnection(within timeout: Duration) async -> Bool {
        let now = clock.elapsed
        let (dropped, time): (Bool, Duration) = air.withLock { air in
            guard let connection = air.connection else { return (true, now) }
            if let dropAt = connection.dropAt, dropAt <= now + timeout {
                Self.drop(&air, at: max(now, dropAt), link: link)
                return (true, max(now, dropAt))
            }
            return (false, now + timeout)
        }
        clock.advance(to: time)
        return dropped
    }

    /// Drops the link from the central's side.
    public func disconnect() async {
        let now = clock.elapsed
        air.withLock { air in
            if air.connection != nil { Self.drop(&air, at: now, link: link) }
        }
    }

    // MARK: - Link timing

    /// Sends one ATT PDU in the next free slot, delivers it, and moves the clock:
    /// to the transmission for writes without response, to the acknowledgement otherwise.
    private func exchange(endpoint: DFUEndpoint, bytes: [UInt8], withoutResponse: Bool = false,
                          _ body: (inout Air, Connection, String, Duration) -> DFUTransportError?) throws(DFUTransportError) {
        let now = clock.elapsed
        let outcome: (DFUTransportError?, Duration) = air.withLock { air in
            guard var connection = air.connection else { return (.disconnected, now) }
            if let dropAt = connection.dropAt, dropAt <= now {
                Self.drop(&air, at: now, link: link)
                return (.disconnected, now)
            }
            let characteristic = connection.uuids.uuids(of: endpoint).characteristic.uppercased()
            guard bytes.count <= link.maximumWriteLength else {
                return (.failed("a write of \(bytes.count) bytes is longer than the ATT MTU allows (\(link.maximumWriteLength))"), now)
            }
            let exchange = link.exchangeTime(attPayload: bytes.count)
            let start = Self.slot(for: &connection, at: now, exchange: exchange, link: link)
            let arrival = start + exchange
            if let dropAt = connection.dropAt, dropAt <= arrival {
                air.connection = connection
                Self.drop(&air, at: dropAt, link: link)
                return (.disconnected, max(now, dropAt))
            }
            air.connection = connection
            let error = body(&air, connection, characteristic, arrival)
            if error == .disconnected {
                Self.drop(&air, at: arrival, link: link)
                return (.disconnected, arrival)
            }
            if withoutResponse { return (error, start) }
            let acknowledged = Self.nextEvent(after: arrival, connection: connection, link: link) + exchange
            if let dropAt = air.connection?.dropAt, dropAt < acknowledged {
                Self.drop(&air, at: dropAt, link: link)
                return (.disconnected, dropAt)
            }
            return (error, acknowledged)
        }
        clock.advance(to: outcome.1)
        if let error = outcome.0 { throw error }
    }

    /// The start of the exchange for a PDU the host has ready at `time`.
    private static func slot(for connection: inout Connection, at time: Duration, exchange: Duration, link: LinkModel) -> Duration {
        let interval = link.connectionInterval.nanosecondsTotal
        let origin = connection.start
        func eventStart(_ index: Int64) -> Duration { origin + .nanoseconds(index * interval) }
        if connection.lastEvent >= 0, time <= connection.lastEnd,
            connection.packetsInEvent < (link.packetsPerEvent ?? Int.max),
            connection.lastEnd + exchange <= eventStart(connection.lastEvent) + link.usableEventLength {
            let start = connection.lastEnd
            connection.lastEnd = start + exchange
            connection.packetsInEvent += 1
            return start
        }
        let since = max(0, (time - connection.start).nanosecondsTotal)
        var index = (since + interval - 1) / interval
        if index <= connection.lastEvent { index = connection.lastEvent + 1 }
        let start = eventStart(index)
        connection.lastEvent = index
        connection.lastEnd = start + exchange
        connection.packetsInEvent = 1
        return start
    }

    private static func nextEvent(after time: Duration, connection: Connection, link: LinkModel) -> Duration {
        nextEvent(after: time, start: connection.start, interval: link.connectionInterval)
    }

    /// The first connection event strictly after `time` of a connection whose events start at `start`.
    private static func nextEvent(after time: Duration, start: Duration, interval: Duration) -> Duration {
        let step = interval.nanosecondsTotal
        let since = max(0, (time - start).nanosecondsTotal)
        return start + .nanoseconds((since / step + 1) * step)
    }

    /// Runs a firmware handler at `time` and schedules what it asked for.
    private static func deliver(_ air: inout Air, link: LinkModel, at time: Duration,
                                _ handler: (inout any SimulatedFirmware, inout SimulatedContext) -> SimulatedATTError?)
        -> SimulatedATTError? {
        guard var connection = air.connection else { return nil }
        var device = air.peripherals[connection.index]
        var context = SimulatedContext(now: time, subscribed: connection.subscribed, isBonded: device.profile.isBonded,
                                       storage: device.storage, flash: link.flash)
        context.notificationLength = link.maximumWriteLength
        // A notification queued at t goes in the first event after t (plus the response-delay fault, as below), and
        // the central's first packet of the event after acknowledges it; a write the central sends on the
        // notification travels in that packet, so it arrives no later than the acknowledgement.
        let origin = connection.start, interval = link.connectionInterval, delay = air.faults.responseDelay
        let packet = link.exchangeTime(attPayload: link.maximumWriteLength)
        context.notificationAcknowledged = { queued in
            Self.nextEvent(after: queued + delay, start: origin, interval: interval) + interval + packet
        }
        var firmware = device.firmware
        let droppedBefore = (firmware as? SimulatedSecureBootloader)?.droppedPackets ?? 0
        let error = handler(&firmware, &context)
        air.droppedByTargets += ((firmware as? SimulatedSecureBootloader)?.droppedPackets ?? 0) - droppedBefore
        device.firmware = firmware
        device.storage = context.storage
        air.peripherals[connection.index] = device
        air.violations += context.violations
        var lastSent: Duration = .zero
        for effect in context.effects {
            switch effect {
            case .notify(let characteristic, let bytes, let delay):
                air.notifications += 1
                let ready = time + delay + air.faults.responseDelay
                var delivered = nextEvent(after: ready, connection: connection, link: link)
                    + link.exchangeTime(attPayload: bytes.count)
                lastSent = max(lastSent, delivered)
                if air.faults.droppedNotifications.contains(air.notifications) { continue }
                // Notifications on one link stay in order: a late one holds back those after it.
                delivered += air.faults.lateNotifications[air.notifications] ?? .zero
                delivered = max(delivered, connection.pending.map(\.time).max() ?? .zero)
                connection.pending.append(PendingNotification(time: delivered, characteristic: characteristic, bytes: bytes))
            case .reboot(let target, let delay):
                // The device resets only after the answers it queued before went on the air (the final
                // Execute's response precedes the settings write and the reset, whatever the interval).
                let at = max(time + delay + air.faults.responseDelay, lastSent)
                connection.dropAt = min(connection.dropAt ?? at, at)
                connection.pendingBoot = (target, at)
            }
        }
        air.connection = connection
        return error
    }

    private static func drop(_ air: inout Air, at time: Duration, link: LinkModel) {
        guard let connection = air.connection else { return }
        var device = air.peripherals[connection.index]
        var context = SimulatedContext(now: time, subscribed: connection.subscribed, isBonded: device.profile.isBonded,
                                       storage: device.storage, flash: link.flash)
        var firmware = device.firmware
        firmware.connectionDropped(context: &context)
        device.firmware = firmware
        device.storage = context.storage
        if let boot = connection.pendingBoot {
            device.boot(into: boot.target, at: max(time, boot.at) + link.bootTime, flash: link.flash)
        }
        air.peripherals[connection.index] = device
        air.trace.append(SimulatedTraceEntry(time: time, event: .disconnected))
        air.connection = nil
    }

    private static func endpoints(of firmware: any SimulatedFirmware, uuids: DFUServiceUUIDs) -> Set<DFUEndpoint> {
        var found: Set<DFUEndpoint> = []
        for endpoint in DFUEndpoint.allCases {
            let (service, characteristic) = uuids.uuids(of: endpoint)
            let present = firmware.services.contains { candidate in
                candidate.uuid == service.uppercased()
                    && candidate.characteristics.contains { $0.uuid == characteristic.uppercased() }
            }
            if present { found.insert(endpoint) }
        }
        return found
    }

    private static func endpoint(for characteristic: String, uuids: DFUServiceUUIDs) -> DFUEndpoint? {
        DFUEndpoint.allCases.first { uuids.uuids(of: $0).characteristic.uppercased() == characteristic.uppercased() }
    }
}
