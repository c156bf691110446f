import BlueZ
import IOLoop

public import DFUCore

extension BlueZTransport {
    /// AcquireNotify when the characteristic notifies (fallback StartNotify + PropertiesChanged of Value);
    /// StartNotify for indications. BlueZ writes the CCCD; this never does. The SMP characteristic goes
    /// through ``subscribeSMP(_:_:)`` first, which pairs when the device needs an encrypted link.
    public func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        let (context, characteristic) = try connected(endpoint)
        if context.readers[endpoint] != nil || context.valueWatch[characteristic.path] != nil { return }
        if endpoint == .smp {
            try await subscribeSMP(context, characteristic)
            return
        }
        if characteristic.canNotify, usesAcquireNotify, try await acquireNotify(endpoint, characteristic, in: context) {
            return
        }
        try await startNotify(endpoint, characteristic, in: context)
    }

    /// AcquireNotify: true when the descriptor is read from now on, false when bluetoothd refused
    /// (e.g. NotSupported, NotPermitted on older BlueZ: StartNotify is the fallback).
    func acquireNotify(_ endpoint: DFUEndpoint, _ characteristic: BlueZGattCharacteristic, in context: LinkContext)
        async throws(DFUTransportError) -> Bool
    {
        do {
            let (descriptor, mtu) = try await client.acquireNotify(characteristic: characteristic.path)
            notifyAcquired.insert(characteristic.path)
            let events = context.events
            context.readers[endpoint] = try NotificationReader(
                descriptor: descriptor, loop: loop, maximumLength: max(mtu, context.mtu),
                onPacket: { bytes in events.post(DFUNotification(endpoint: endpoint, bytes: bytes)) },
                onHangUp: { events.markDown() })
            return true
        } catch {
            if context.events.isDown { throw .disconnected }
            return false
        }
    }

    /// StartNotify: values arrive as PropertiesChanged of `Value`.
    func startNotify(_ endpoint: DFUEndpoint, _ characteristic: BlueZGattCharacteristic, in context: LinkContext)
        async throws(DFUTransportError)
    {
        context.valueWatch[characteristic.path] = endpoint
        do {
            try await client.startNotify(characteristic: characteristic.path)
        } catch {
            context.valueWatch[characteristic.path] = nil
            throw context.events.isDown ? .disconnected : Self.transportError(error)
        }
    }

    /// Notifications of the SMP characteristic, whose CCCD nRF Connect SDK 3.x guards with an encrypted
    /// link by default (`MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN`).
    ///
    /// The first subscription of each link is a StartNotify: when the CCCD write fails with ATT error
    /// 0x05 or 0x0F, bluetoothd first raises the link's security itself (`src/shared/att.c`
    /// `change_security`, which pairs through the default agent) and then answers `NotPermitted "Not
    /// paired"` (`src/gatt-client.c` `create_gatt_dbus_error`). AcquireNotify is not tried first
    /// because bluetoothd 5.66 never answers it when the CCCD write fails (`register_notify_io_cb`
    /// frees the session without a reply and leaves the characteristic "Notify acquired" until the
    /// link drops; fixed upstream in 5.84). On "Not paired" the transport pairs (``pair(_:address:)``,
    /// its agent registered beforehand so bluetoothd's own attempt finds one too) and subscribes again.
    /// With a passkey given (`--passkey`) an unpaired device is paired before the first subscription.
    /// Once subscribed, and where AcquireNotify is wanted, it moves there: StopNotify, then AcquireNotify,
    /// whose CCCD write now succeeds on this link.
    func subscribeSMP(_ context: LinkContext, _ characteristic: BlueZGattCharacteristic) async throws(DFUTransportError) {
        let device = devices[context.device]
        let address = device.flatMap { DFUDeviceAddress($0.address) }
        let wasPaired = device.map { $0.isPaired || $0.isBonded } ?? false
        if !wasPaired { await ensureAgent() }
        var paired = false
        pairingAsked = false
        if !wasPaired, pairingPasskey != nil, let address {
            // A passkey given on the command line says how this device pairs: with the transport's agent,
            // whichever agent bluetoothd would ask for a pairing of its own.
            do {
                try await pair(context, address: address)
            } catch .disconnected {
                throw await authenticationDropped(context, address: address, removingBond: true)
            }
            paired = true
        }
        while true {
            context.valueWatch[characteristic.path] = .smp
            let failure: BlueZError
            do {
                // bluetoothd may pair before it answers, through an agent that asks a person for the passkey.
                try await client.startNotify(characteristic: characteristic.path, timeout: wasPaired ? nil : Self.pairingTimeout)
                break
            } catch {
                failure = error
            }
            context.valueWatch[characteristic.path] = nil
            // The link's end may reach this before its Connected signal does: "Not connected" says it too.
            if context.events.isDown || Self.transportError(failure) == .disconnected {
                // The link went while it was being paired (or secured with the new keys): an authentication
                // failure, not a lost signal (see ``authenticationDropped(_:address:removingBond:)``).
                if paired || pairingAsked, let address {
                    throw await authenticationDropped(context, address: address, removingBond: !wasPaired)
                }
                throw .disconnected
            }
            guard failure.needsPairing, let address else { throw Self.transportError(failure) }
            if wasPaired {
                throw .pairingFailed(
                    "\(address) refuses its SMP characteristic on a link paired with this host: its bond with this "
                        + "host may be lost or not authenticated; remove it (bluetoothctl remove \(address)) and retry"
                        + (pairingPasskey == nil ? " with the passkey it shows (--passkey)" : ""))
            }
            if paired {
                // This run's pairing made a bond that does not open the characteristic (Just Works keys where
                // the device needs authenticated ones): it is removed, so a rerun with --passkey pairs afresh.
                await removeBondMadeHere(context)
                throw .pairingFailed(
                    pairingPasskey == nil
                        ? "\(address) refuses its SMP characteristic on a link paired without authentication: it needs "
                            + "an authenticated pairing; give the passkey it shows with --passkey (the unauthenticated "
                            + "bond this run made was removed)"
                        : "\(address) refuses its SMP characteristic on a link this run paired with the passkey given; "
                            + "the bond was removed, check the passkey and the device's security settings")
            }
            do {
                try await pair(context, address: address)
            } catch .disconnected {
                throw await authenticationDropped(context, address: address, removingBond: true)
            }
            paired = true
        }
        guard usesAcquireNotify, characteristic.canNotify else { return }
        do {
            try await client.stopNotify(characteristic: characteristic.path)
        } catch {
            if context.events.isDown { throw .disconnected }
            return  // Still subscribed through StartNotify.
        }
        context.valueWatch[characteristic.path] = nil
        if try await acquireNotify(.smp, characteristic, in: context) { return }
        try await startNotify(.smp, characteristic, in: context)
    }

    /// Control point writes: WriteValue type=request. Packets: the AcquireWrite descriptor,
    /// fallback WriteValue type=command (``writePackets(_:to:)``).
    ///
    /// A WriteValue waits until bluetoothd has read every packet from the AcquireWrite socket:
    /// bluetoothd serves the socket and D-Bus from one main loop in no set order, so a control
    /// point request it handled first would overtake packets still in the socket.
    public func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        if type == .withoutResponse { return try await writePackets([bytes], to: endpoint) }
        let (context, characteristic) = try connected(endpoint)
        if let writer = context.writer { await waitUntilRead(writer) }
        // Every other call goes after the commands in flight, and reports their failure first.
        try await finishCommands(in: context, keeping: 0)
        try await writeValue(bytes, to: characteristic, in: context, withResponse: true)
    }

    /// Packets without response, in one call of the actor: through the AcquireWrite descriptor (acquired on the
    /// first packet), or by WriteValue type=command where AcquireWrite is off or refused.
    public func writePackets(_ packets: [[UInt8]], to endpoint: DFUEndpoint) async throws(DFUTransportError) {
        let (context, characteristic) = try connected(endpoint)
        if let writer = context.writer, endpoint != context.writerEndpoint {
            await waitUntilRead(writer)
        }
        var rest = packets[...]
        while let packet = rest.first {
            if !usesAcquireWrite || context.acquireWriteRefused {
                let commands = try writeCommands(to: characteristic, in: context)
                for packet in rest {
                    if try sendCommandUnanswered(packet, through: commands, in: context) { continue }
                    try await sendCommandAskingForAnswer(packet, through: commands, in: context)
                }
                return
            }
            try await finishCommands(in: context, keeping: 0)
            if let writer = await packetWriter(for: endpoint, characteristic, in: context) {
                for packet in rest { try await send(packet, through: writer) }
                return
            }
            if context.events.isDown { throw .disconnected }
            // AcquireWrite was refused just now: this packet by WriteValue, the next ones as commands.
            try await writeValue(packet, to: characteristic, in: context, withResponse: false)
            rest = rest.dropFirst()
        }
    }

    /// The AcquireWrite writer, acquired for `characteristic` on first use; nil when bluetoothd refused it (then
    /// marked refused, and not asked again on this link) or the link went down meanwhile.
    private func packetWriter(for endpoint: DFUEndpoint, _ characteristic: BlueZGattCharacteristic, in context: LinkContext) async
        -> PacketWriter?
    {
        if let writer = context.writer { return writer }
        do {
            let (descriptor, mtu) = try await client.acquireWrite(characteristic: characteristic.path)
            let writer = PacketWriter(descriptor: descriptor, mtu: LinkContext.attMTU(mtu), loop: loop)
            context.writer = writer
            context.writerEndpoint = endpoint
            return writer
        } catch {
            // A link that went down refused nothing: the caller reports the disconnection.
            if !context.events.isDown { context.acquireWriteRefused = true }
            return nil
        }
    }

    /// One packet through the AcquireWrite socket, at once when it has room (without leaving the actor), else after
    /// waiting for room; a closed socket is the link dropped.
    private func send(_ packet: [UInt8], through writer: PacketWriter) async throws(DFUTransportError) {
        let failure: PacketWriter.Failure
        do {
            if try writer.sendIfRoom(packet) { return }
            try await writer.send(packet, timeout: .seconds(10))
            return
        } catch {
            failure = error
        }
        switch failure {
        case .closed:
            linkDropped()
            throw .disconnected
        case .timedOut: throw .timedOut
        case .failed(let code): throw .failed("writing to the AcquireWrite socket failed (errno \(code))")
        }
    }

    /// WriteValue with type request or command, waiting for bluetoothd's answer, which vouches for the commands sent
    /// before it.
    private func writeValue(_ bytes: [UInt8], to characteristic: BlueZGattCharacteristic, in context: LinkContext, withResponse: Bool)
        async throws(DFUTransportError)
    {
        do {
            try await client.writeValue(bytes, characteristic: characteristic.path, withResponse: withResponse)
        } catch {
            throw context.events.isDown ? .disconnected : Self.transportError(error)
        }
        context.commandsUnanswered = 0
    }

    /// Of at most this many WriteValue type=command calls in a row, one asks for bluetoothd's answer: more than the 17
    /// packets of a 4 KB Secure DFU object at ATT MTU 247, whose Calculate Checksum request vouches for them instead.
    static let commandWindow = 32

    /// A packet through WriteValue type=command, sent with `NO_REPLY_EXPECTED`, which bluetoothd honours (BlueZ
    /// gdbus/object.c, `process_message`): nothing comes back for it, and sending it does not suspend. bluetoothd
    /// handles one connection's calls in the order sent, answers a command once it has queued the write (BlueZ 5.66
    /// src/gatt-client.c, characteristic_write_value: bt_gatt_client_write_without_response, then the method return)
    /// and sends queued commands before a queued request (src/shared/att.c, `pick_next_send_op`), so the answer to any
    /// later call on the link vouches for the packets before it. False (nothing sent) when ``commandWindow`` commands
    /// in a row would have had no such answer (a long stream: a Legacy image, a small MTU): this packet then asks for
    /// its own (``sendCommandAskingForAnswer(_:through:in:)``).
    private func sendCommandUnanswered(_ bytes: [UInt8], through commands: BlueZWriteCommands, in context: LinkContext)
        throws(DFUTransportError) -> Bool
    {
        guard context.commandsUnanswered + 1 < Self.commandWindow else { return false }
        context.commandsUnanswered += 1
        do {
            try commands.send(bytes)
        } catch {
            throw context.events.isDown ? .disconnected : Self.transportError(error)
        }
        return true
    }

    /// A packet through WriteValue type=command that asks for bluetoothd's answer, awaited later: first the last one
    /// asked for is awaited, so at most two windows of packets are unanswered at a time. A call other than a command
    /// waits until every answer asked for has come; an answer that is an error (the link went down, bluetoothd
    /// refused the packet) makes the next call fail.
    private func sendCommandAskingForAnswer(_ bytes: [UInt8], through commands: BlueZWriteCommands, in context: LinkContext)
        async throws(DFUTransportError)
    {
        context.commandsUnanswered = 0
        try await finishCommands(in: context, keeping: 0)
        do {
            context.commandsInFlight.append(try commands.sendAnsweredLater(bytes))
        } catch {
            throw context.events.isDown ? .disconnected : Self.transportError(error)
        }
    }

    /// The WriteValue type=command calls to `characteristic` on this link, made on first use.
    private func writeCommands(to characteristic: BlueZGattCharacteristic, in context: LinkContext)
        throws(DFUTransportError) -> BlueZWriteCommands
    {
        if let commands = context.commands[characteristic.path] { return commands }
        do {
            let commands = try client.writeCommands(to: characteristic.path)
            context.commands[characteristic.path] = commands
            return commands
        } catch {
            throw Self.transportError(error)
        }
    }

    /// Waits for the oldest commands in flight until at most `keeping` are left; throws the first
    /// failure among them (the link is then down, or bluetoothd refused a packet).
    func finishCommands(in context: LinkContext, keeping: Int) async throws(DFUTransportError) {
        while context.commandsInFlight.count > keeping {
            let oldest = context.commandsInFlight.removeFirst()
            if let error = await oldest.failure() {
                let rest = context.commandsInFlight
                context.commandsInFlight = []
                for command in rest { _ = await command.failure() }
                throw context.events.isDown ? .disconnected : Self.transportError(error)
            }
        }
    }

    /// Waits (1 ms steps on the loop's timer, at most 2 s) until bluetoothd has read all packets from
    /// the AcquireWrite socket. No event says so, hence the polling; with bluetoothd keeping up, the
    /// first look is enough.
    func waitUntilRead(_ writer: PacketWriter) async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(2))
        while let unread = writer.unreadBytes(), unread > 0, ContinuousClock.now < deadline {
            await loop.sleep(until: ContinuousClock.now.advanced(by: .milliseconds(1)))
        }
    }

    /// ReadValue.
    public func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] {
        let (context, characteristic) = try connected(endpoint)
        try await finishCommands(in: context, keeping: 0)
        do {
            let value = try await client.readValue(characteristic: characteristic.path)
            context.commandsUnanswered = 0
            return value
        } catch {
            throw context.events.isDown ? .disconnected : Self.transportError(error)
        }
    }

    /// The next notification in arrival order.
    public func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        guard let link else { throw .disconnected }
        return try await link.events.next(within: timeout)
    }

    /// Waits for the device to drop the link.
    public func waitForDisconnection(within timeout: Duration) async -> Bool {
        guard let link else { return true }
        return await link.events.waitForDown(within: timeout)
    }

    private func connected(_ endpoint: DFUEndpoint) throws(DFUTransportError) -> (LinkContext, BlueZGattCharacteristic) {
        guard let link, !link.events.isDown else { throw .disconnected }
        guard let characteristic = link.characteristics[endpoint] else { throw .endpointMissing(endpoint) }
        return (link, characteristic)
    }
}
