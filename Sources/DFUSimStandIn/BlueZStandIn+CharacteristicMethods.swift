import DBus
import DFUSimulator

/// The GATT characteristic's D-Bus methods as bluetoothd 5.66 answers them (src/gatt-client.c):
/// ReadValue, WriteValue, AcquireWrite, AcquireNotify, StartNotify and StopNotify.
extension BlueZStandIn {
    func readValue(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, radio, characteristic) = try characteristic(for: message)
        guard message.arguments.count == 1, let options = message.arguments[0].stringKeyedDictionary,
            Self.optionsAreWellTyped(options)
        else { throw BlueZNames.error("InvalidArguments", "Invalid arguments in method call") }
        drainAcquiredWrites(device)
        // The attribute's read permission is checked by the peer's stack before its firmware sees the
        // read: the DFU Control Point and Packet have none (ATT 0x02), the buttonless characteristic
        // is open (SDK 15–17 `nrf_dfu_ble.c` `dfu_pkt_char_add`/`dfu_ctrl_pt_add`, `ble_dfu_bonded.c`/
        // `ble_dfu_unbonded.c` `ble_dfu_buttonless_char_add`).
        guard characteristic.readable else { throw Self.error(forATT: 0x02) }
        switch radios[radio].read(characteristic.uuid) {
        case .success(let bytes):
            characteristic.value = bytes
            update(characteristic, on: device)
            try connection.setProperty(
                member("Value"), to: .byteArray(bytes), interface: names.gattCharacteristic, at: characteristic.path)
            return [.byteArray(bytes)]
        case .failure(let error) where error == .attributeNotFound:
            // Readable but the firmware keeps no value of its own: the stack answers the attribute's
            // current (empty) value.
            return [.byteArray(characteristic.value)]
        case .failure(let error):
            throw Self.error(forATT: error.code)
        }
    }

    /// `parse_options` of BlueZ 5.66 `src/gatt-client.c`: `offset` must be a `q` and `type` an `s`.
    static func optionsAreWellTyped(_ options: [String: DBusValue]) -> Bool {
        for (key, value) in options {
            switch key.lowercased() {
            case "offset": if value.unwrappingVariant.signature.rawValue != "q" { return false }
            case "type": if value.unwrappingVariant.signature.rawValue != "s" { return false }
            default: continue
            }
        }
        return true
    }

    /// WriteValue as BlueZ 5.66 `src/gatt-client.c` `characteristic_write_value` picks the ATT
    /// procedure: `type=request` (or no type on a `write` characteristic) sends a Write Request whatever
    /// the flags, `type=command` (or no type on a write-without-response one) a Write Command whatever
    /// the flags, any other type is NotSupported; `offset` must be a `q`.
    func writeValue(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, radio, characteristic) = try characteristic(for: message)
        // What the client wrote to an AcquireWrite socket goes first, and a socket it closed is released
        // (`sock_hup`) before this call is judged: a client may acquire only to learn the MTU and close the
        // socket at once (bleak's `_acquire_mtu` does), then write with WriteValue.
        drainAcquiredWrites(device)
        if let current = devices[device]?.gatt?.characteristics[characteristic.path] { characteristic = current }
        guard characteristic.writeChannel == nil else { throw BlueZNames.error("NotPermitted", "Write acquired") }
        guard message.arguments.count == 2, let bytes = message.arguments[0].byteArrayValue,
            let options = message.arguments[1].stringKeyedDictionary, Self.optionsAreWellTyped(options)
        else { throw BlueZNames.error("InvalidArguments", "Invalid arguments in method call") }
        let offset = options.first { $0.key.lowercased() == "offset" }?.value.integerValue ?? 0
        let requested = options.first { $0.key.lowercased() == "type" }?.value.stringValue?.lowercased()
        let type: SimulatedWriteType
        let canCommand = characteristic.properties.contains(.writeWithoutResponse)
        if requested == "request" || requested == "reliable" || (requested == nil && characteristic.properties.contains(.write)) {
            type = .request
        } else if requested == "command" || (requested == nil && canCommand) {
            // An offset cannot go with a Write Command.
            guard offset == 0 else { throw BlueZNames.error("NotSupported", "Operation is not supported") }
            type = .command
        } else {
            throw BlueZNames.error("NotSupported", "Operation is not supported")
        }
        if type == .request, offset != 0 {
            // A prepared (long) write at an offset: the nRF5 DFU characteristics do not take one.
            throw Self.error(forATT: 0x07)
        }
        // The peer's stack refuses a Write Request to an attribute without write permission; a Write
        // Command that its permissions refuse is dropped without an answer (ATT has none for commands).
        if type == .request, !characteristic.properties.contains(.write) { throw Self.error(forATT: 0x03) }
        if type == .command, !characteristic.properties.contains(.writeWithoutResponse) { return [] }
        if type == .command, bytes.count > configuration.link.model.maximumWriteLength {
            throw BlueZNames.error("Failed", "Failed to initiate write")
        }
        if type == .command {
            radios[radio].count(\.writeValueCommands)
            if message.expectsReply { radios[radio].count(\.writeValueCommandsAnswered) }
        }
        if let error = deliver(bytes, to: characteristic.uuid, type: type, device: device, radio: radio),
            type == .request
        {
            throw Self.error(forATT: error.code)
        }
        return []
    }

    /// Hands a write to the simulated device and queues what it answers.
    @discardableResult
    func deliver(_ bytes: [UInt8], to uuid: String, type: SimulatedWriteType, device: ObjectPath, radio: Int)
        -> SimulatedATTError?
    {
        guard let generation = devices[device]?.generation else { return nil }
        let (error, outcomes) = radios[radio].write(bytes, to: uuid, type: type)
        // A paced SMP device's answers (and the reset after them) go on the paced queue, each at its time: the delay
        // is then counted from now, and later writes are handled meanwhile.
        let paced = radios[radio].pacesAnswers
        var due = ContinuousClock.now
        for outcome in outcomes {
            switch outcome {
            case .notify(let characteristic, let payload, let delay) where paced:
                due = ContinuousClock.now + delay
                enqueuePaced(
                    .notify(device: device, generation: generation, characteristic: characteristic, bytes: payload, delay: .zero),
                    due: due)
            case .drop(let reboot, _) where paced:
                enqueuePaced(.drop(device: device, generation: generation, reboot: reboot, radio: radio, after: .zero), due: due)
            case .notify(let characteristic, let payload, let delay):
                enqueue(
                    .notify(
                        device: device, generation: generation, characteristic: characteristic, bytes: payload,
                        delay: delay))
            case .drop(let reboot, let after):
                enqueue(.drop(device: device, generation: generation, reboot: reboot, radio: radio, after: after))
            case .host(let event):
                enqueue(.host(event))
            }
        }
        return error
    }

    /// Feeds every datagram clients wrote to the device's AcquireWrite sockets to the device, in order;
    /// releases sockets whose client closed them.
    func drainAcquiredWrites(_ device: ObjectPath) {
        guard let object = devices[device], object.connected, let radio = object.radio, let table = object.gatt else {
            return
        }
        for (path, characteristic) in table.characteristics.sorted(by: { $0.key < $1.key }) {
            guard let channel = characteristic.writeChannel else { continue }
            let (packets, ended) = channel.takePackets()
            for packet in packets {
                guard devices[device]?.connected == true else { return }
                if packet.count > configuration.link.model.maximumWriteLength { continue }
                deliver(packet, to: characteristic.uuid, type: .command, device: device, radio: radio)
            }
            if ended, var current = devices[device]?.gatt?.characteristics[path] {
                current.writeChannel?.close()
                current.writeChannel = nil
                update(current, on: device)
                try? connection.setProperty(
                    member("WriteAcquired"), to: .boolean(false), interface: names.gattCharacteristic, at: path)
            }
        }
    }

    /// Checks in the order of BlueZ 5.66 `characteristic_acquire_write`.
    func acquireWrite(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, _, characteristic) = try characteristic(for: message)
        drainAcquiredWrites(device)
        if let current = devices[device]?.gatt?.characteristics[characteristic.path] { characteristic = current }
        guard characteristic.writeChannel == nil else { throw BlueZNames.error("NotPermitted", "Write acquired") }
        guard characteristic.properties.contains(.writeWithoutResponse) else {
            throw BlueZNames.error("NotSupported", "Operation is not supported")
        }
        let (ours, theirs) = try SequencedPacketChannel.makePair()
        guard let generation = devices[device]?.generation else {
            throw BlueZNames.error("NotConnected", "Not Connected")
        }
        let owner = device
        do {
            try ours.startWatching(on: connection.loop) { [weak self] in self?.enqueue(.drain(device: owner, generation: generation)) }
        } catch {
            ours.close()
            throw error
        }
        characteristic.writeChannel = ours
        update(characteristic, on: device)
        if let radio = devices[device]?.radio { radios[radio].count(\.acquireWrites) }
        try connection.setProperty(
            member("WriteAcquired"), to: .boolean(true), interface: names.gattCharacteristic, at: characteristic.path)
        return [.unixFileDescriptor(theirs), .uint16(UInt16(clamping: configuration.link.model.mtu))]
    }

    /// Checks in the order of BlueZ 5.66 `characteristic_acquire_notify`: only a `notify`
    /// characteristic (an indicate-only one is NotSupported until 5.80).
    ///
    /// When the device refuses the CCCD write (for want of security, after bluetoothd's own raise failed), 5.66
    /// frees the session and never answers the call (`register_notify_io_cb`), leaving the characteristic "Notify
    /// acquired" until the link drops; the stand-in answers with the error instead, and counts the call in
    /// ``StandInObservations/refusedAcquireNotify`` (a client that meets it on a real 5.66 waits for ever).
    func acquireNotify(_ message: DBusMessage) async throws -> [DBusValue] {
        do {
            try await admitSubscription(message)
        } catch {
            observed.refusedAcquireNotify += 1
            throw error
        }
        var (device, radio, characteristic) = try characteristic(for: message)
        releaseHungUpNotify(&characteristic, device: device, radio: radio)
        guard characteristic.notifyChannel == nil else { throw BlueZNames.error("NotPermitted", "Notify acquired") }
        guard characteristic.notifySenders.isEmpty else { throw BlueZNames.error("InProgress", "In Progress") }
        let acquirable =
            characteristic.properties.contains(.notify)
            || (configuration.host.version.acquiresIndications && characteristic.properties.contains(.indicate))
        guard acquirable else { throw BlueZNames.error("NotSupported", "Operation is not supported") }
        drainAcquiredWrites(device)
        let (ours, theirs) = try SequencedPacketChannel.makePair()
        characteristic.notifyChannel = ours
        update(characteristic, on: device)
        radios[radio].setSubscribed(characteristic.uuid, true)
        radios[radio].count(\.acquireNotifies)
        // NotifyAcquired exists only on a `notify` characteristic (`characteristic_notify_acquired_exists`).
        var changed: [MemberName: DBusValue] = [try member("Notifying"): .boolean(true)]
        if characteristic.properties.contains(.notify) { changed[try member("NotifyAcquired")] = .boolean(true) }
        try connection.setProperties(changed, interface: names.gattCharacteristic, at: characteristic.path)
        return [.unixFileDescriptor(theirs), .uint16(UInt16(clamping: configuration.link.model.mtu))]
    }

    /// StartNotify as BlueZ 5.66 `characteristic_start_notify`: a second call from the same client
    /// succeeds once its session is registered with the peer (InProgress while the device is not
    /// connected); on a cached object of a device that is not connected the session is kept and
    /// registered when the link comes back.
    func startNotify(_ message: DBusMessage) async throws -> [DBusValue] {
        try await admitSubscription(message)
        let (object, cached) = try cachedCharacteristic(for: message)
        let sender = message.sender?.rawValue ?? ""
        guard object.connected, let radio = object.radio else {
            guard cached.notifyChannel == nil else { throw BlueZNames.error("NotPermitted", "Notify acquired") }
            guard cached.canNotify else { throw BlueZNames.error("NotSupported", "Operation is not supported") }
            guard !cached.notifySenders.contains(sender) else { throw BlueZNames.error("InProgress", "In Progress") }
            var characteristic = cached
            characteristic.notifySenders.insert(sender)
            update(characteristic, on: object.path)
            return []
        }
        let device = object.path
        var characteristic = cached
        releaseHungUpNotify(&characteristic, device: device, radio: radio)
        guard characteristic.notifyChannel == nil else { throw BlueZNames.error("NotPermitted", "Notify acquired") }
        guard characteristic.canNotify else { throw BlueZNames.error("NotSupported", "Operation is not supported") }
        guard !characteristic.notifySenders.contains(sender) else { return [] }
        drainAcquiredWrites(device)
        let wasNotifying = characteristic.isNotifying
        characteristic.notifySenders.insert(sender)
        update(characteristic, on: device)
        radios[radio].count(\.startNotifies)
        if !wasNotifying {
            radios[radio].setSubscribed(characteristic.uuid, true)
            try connection.setProperty(
                member("Notifying"), to: .boolean(true), interface: names.gattCharacteristic, at: characteristic.path)
        }
        return []
    }

    /// Before a subscription of a connected device's characteristic writes its CCCD: the security the
    /// device asks for, raised when it refuses (``admitSubscription(_:characteristic:)``).
    func admitSubscription(_ message: DBusMessage) async throws {
        let (object, characteristic) = try cachedCharacteristic(for: message)
        guard object.connected, characteristic.canNotify, characteristic.notifyChannel == nil,
            characteristic.notifySenders.isEmpty
        else { return }
        try await admitSubscription(object.path, characteristic: characteristic.uuid)
    }

    /// StopNotify as BlueZ 5.66 `characteristic_stop_notify`: it also ends an AcquireNotify session.
    func stopNotify(_ message: DBusMessage) throws -> [DBusValue] {
        let (object, cached) = try cachedCharacteristic(for: message)
        var characteristic = cached
        let device = object.path
        if let channel = characteristic.notifyChannel {
            channel.close()
            characteristic.notifyChannel = nil
            update(characteristic, on: device)
            if characteristic.properties.contains(.notify) {
                try connection.setProperty(
                    member("NotifyAcquired"), to: .boolean(false), interface: names.gattCharacteristic,
                    at: characteristic.path)
            }
            if !characteristic.isNotifying {
                if let radio = object.radio { radios[radio].setSubscribed(characteristic.uuid, false) }
                try connection.setProperty(
                    member("Notifying"), to: .boolean(false), interface: names.gattCharacteristic,
                    at: characteristic.path)
            }
            return []
        }
        let sender = message.sender?.rawValue ?? ""
        guard characteristic.notifySenders.remove(sender) != nil else {
            throw BlueZNames.error("Failed", "No notify session started")
        }
        update(characteristic, on: device)
        if !characteristic.isNotifying {
            if let radio = object.radio { radios[radio].setSubscribed(characteristic.uuid, false) }
            try connection.setProperty(
                member("Notifying"), to: .boolean(false), interface: names.gattCharacteristic, at: characteristic.path)
        }
        return []
    }

    /// bluetoothd notices a closed AcquireNotify socket and ends that subscription.
    func releaseHungUpNotify(_ characteristic: inout GATTTable.Characteristic, device: ObjectPath, radio: Int) {
        guard let channel = characteristic.notifyChannel, channel.isHungUp else { return }
        channel.close()
        characteristic.notifyChannel = nil
        update(characteristic, on: device)
        if characteristic.properties.contains(.notify) {
            try? connection.setProperty(
                member("NotifyAcquired"), to: .boolean(false), interface: names.gattCharacteristic,
                at: characteristic.path)
        }
        if !characteristic.isNotifying {
            radios[radio].setSubscribed(characteristic.uuid, false)
            try? connection.setProperty(
                member("Notifying"), to: .boolean(false), interface: names.gattCharacteristic, at: characteristic.path)
        }
    }

    /// The only descriptor served is a CCCD, which bluetoothd does not let clients write: StartNotify
    /// and StopNotify do (`gatt-client.c` `descriptor_write_value`).
    func writeDescriptor(_ message: DBusMessage) throws -> [DBusValue] {
        guard let path = message.path,
            let device = devices.values.first(where: { $0.gatt?.descriptors[path] != nil }), device.connected
        else { throw BlueZNames.error("Failed", "Not connected") }
        throw BlueZNames.error("NotPermitted", "Write not permitted")
    }

    func readDescriptor(_ message: DBusMessage) throws -> [DBusValue] {
        guard let path = message.path,
            let device = devices.values.first(where: { $0.gatt?.descriptors[path] != nil }), device.connected,
            let characteristicPath = device.gatt?.descriptors[path],
            let characteristic = device.gatt?.characteristics[characteristicPath]
        else { throw BlueZNames.error("Failed", "Not connected") }
        let value: [UInt8] =
            characteristic.isNotifying
            ? (characteristic.properties.contains(.notify) ? [0x01, 0x00] : [0x02, 0x00]) : [0x00, 0x00]
        try connection.setProperty(member("Value"), to: .byteArray(value), interface: names.gattDescriptor, at: path)
        return [.byteArray(value)]
    }
}
