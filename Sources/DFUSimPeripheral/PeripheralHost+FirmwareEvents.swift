import DBus
import DFUCore
import DFUSimStandIn
import DFUSimulator
import IOLoop

/// What bluetoothd hands the host (writes, reads, subscriptions, acquired sockets) given to the
/// current firmware, and the firmware's effects (notifications, disconnections, reboots) carried out.
extension PeripheralHost {
    func context() -> SimulatedContext {
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

    func noteOptions(_ options: DBusValue?) {
        guard let dictionary = options?.stringKeyedDictionary else { return }
        if let mtu = dictionary["mtu"]?.integerValue { report.mtu = Int(mtu) }
        if let device = dictionary["device"]?.objectPathValue { central = device }
    }

    /// A WriteValue call: lost while the link is being lost on purpose. A socket just handed out through AcquireWrite
    /// is first given up to 500 ms for the writes bluetoothd held while it acquired (they come before this call in ATT
    /// order), and then 5 ms with no more (``AcquiredSocket/awaitHeldWrites(on:within:quiet:)``).
    func writeValue(_ bytes: [UInt8], to path: ObjectPath, options: DBusValue?) async throws(DBusError) {
        for socket in writeSockets.values {
            await socket.awaitHeldWrites(on: loop, within: .milliseconds(500), quiet: .milliseconds(5))
        }
        try write(bytes, to: path, options: options, acquired: false)
    }

    func write(_ bytes: [UInt8], to path: ObjectPath, options: DBusValue?, acquired: Bool) throws(DBusError) {
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
        if !report.boots.isEmpty { report.boots[report.boots.count - 1].noteWrite(at: elapsed.dfuSecondsValue) }
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

    func read(_ path: ObjectPath, options: DBusValue?) throws(DBusError) -> [UInt8] {
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

    func setNotifying(_ on: Bool, path: ObjectPath) {
        guard let characteristic = layout?.characteristic(at: path) else { return }
        if on { subscribed.insert(characteristic.simulatedUUID) } else { subscribed.remove(characteristic.simulatedUUID) }
        try? connection.setProperty(names.notifying, to: .boolean(on), interface: names.gattCharacteristic, at: path)
    }

    func acquire(_ path: ObjectPath, forWriting: Bool, options: DBusValue?) throws -> [DBusValue] {
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

    func acquiredSocketClosed(_ path: ObjectPath, forWriting: Bool, generation: Int) {
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
    func processAcquiredPackets() {
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

    func closeSockets() {
        for socket in writeSockets.values { socket.close() }
        for socket in notifySockets.values { socket.close() }
        writeSockets = [:]
        notifySockets = [:]
    }

    func apply(_ effects: [SimulatedEffect]) {
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

    func send(_ pending: PendingNotification) {
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
}
