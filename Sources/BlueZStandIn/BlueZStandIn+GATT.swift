import DBus
import DFUSimulator

extension BlueZStandIn {
    /// The interfaces of one GATT object of `table`.
    func gattInterfaces(at path: ObjectPath, table: GATTTable, device: ObjectPath) throws(DBusError) -> [DBusInterface]
    {
        if let service = table.services.first(where: { $0.path == path }) {
            return [
                DBusInterface(
                    names.gattService,
                    properties: [
                        DBusProperty(try member("UUID"), value: .string(service.uuid.lowercased())),
                        DBusProperty(try member("Device"), value: .objectPath(device)),
                        DBusProperty(try member("Primary"), value: .boolean(true)),
                        DBusProperty(try member("Includes"), value: .array(elementSignature: "o", elements: [])),
                        DBusProperty(try member("Handle"), value: .uint16(service.handle)),
                    ])
            ]
        }
        if let characteristicPath = table.descriptors[path] {
            return [
                DBusInterface(
                    names.gattDescriptor,
                    methods: [
                        DBusMethod(
                            try member("ReadValue"), inputs: [DBusArgument("options", "a{sv}")],
                            outputs: [DBusArgument("value", "ay")],
                            handler: handler { standIn, message in try await standIn.readDescriptor(message) }),
                        DBusMethod(
                            try member("WriteValue"),
                            inputs: [DBusArgument("value", "ay"), DBusArgument("options", "a{sv}")],
                            handler: { _ in throw BlueZNames.error("NotPermitted", "Write not permitted") }),
                    ],
                    properties: [
                        DBusProperty(try member("UUID"), value: .string("00002902-0000-1000-8000-00805f9b34fb")),
                        DBusProperty(try member("Characteristic"), value: .objectPath(characteristicPath)),
                        DBusProperty(try member("Value"), value: .byteArray([])),
                        DBusProperty(try member("Handle"), value: .uint16(table.descriptorHandles[path] ?? 0)),
                    ])
            ]
        }
        guard let characteristic = table.characteristics[path] else { return [] }
        var properties = [
            DBusProperty(try member("UUID"), value: .string(characteristic.uuid.lowercased())),
            DBusProperty(try member("Service"), value: .objectPath(characteristic.servicePath)),
            DBusProperty(try member("Value"), value: .byteArray([])),
            DBusProperty(try member("Handle"), value: .uint16(characteristic.handle)),
        ]
        if characteristic.canNotify {
            properties.append(DBusProperty(try member("Notifying"), value: .boolean(false)))
        }
        properties.append(DBusProperty(try member("Flags"), value: .stringArray(characteristic.flags)))
        if characteristic.properties.contains(.writeWithoutResponse) {
            properties.append(DBusProperty(try member("WriteAcquired"), value: .boolean(false)))
        }
        if characteristic.canNotify {
            properties.append(DBusProperty(try member("NotifyAcquired"), value: .boolean(false)))
        }
        properties.append(
            DBusProperty(try member("MTU"), value: .uint16(UInt16(clamping: configuration.link.model.mtu))))
        let options = DBusArgument("options", "a{sv}")
        return [
            DBusInterface(
                names.gattCharacteristic,
                methods: [
                    DBusMethod(
                        try member("ReadValue"), inputs: [options], outputs: [DBusArgument("value", "ay")],
                        handler: handler { standIn, message in try await standIn.readValue(message) }),
                    DBusMethod(
                        try member("WriteValue"), inputs: [DBusArgument("value", "ay"), options],
                        handler: handler { standIn, message in try await standIn.writeValue(message) }),
                    DBusMethod(
                        try member("AcquireWrite"), inputs: [options],
                        outputs: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")],
                        handler: handler { standIn, message in try await standIn.acquireWrite(message) }),
                    DBusMethod(
                        try member("AcquireNotify"), inputs: [options],
                        outputs: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")],
                        handler: handler { standIn, message in try await standIn.acquireNotify(message) }),
                    DBusMethod(
                        try member("StartNotify"),
                        handler: handler { standIn, message in try await standIn.startNotify(message) }),
                    DBusMethod(
                        try member("StopNotify"),
                        handler: handler { standIn, message in try await standIn.stopNotify(message) }),
                ],
                properties: properties)
        ]
    }

    // MARK: - Lookup

    /// The connected device, its radio, and the characteristic a call addresses.
    private func characteristic(for message: DBusMessage) throws -> (
        device: ObjectPath, radio: Int, GATTTable.Characteristic
    ) {
        guard let path = message.path,
            let device = devices.values.first(where: { $0.gatt?.characteristics[path] != nil })
        else { throw BlueZNames.error("Failed", "Not connected") }
        guard device.connected, let radio = device.radio, let characteristic = device.gatt?.characteristics[path] else {
            throw BlueZNames.error("NotConnected", "Not Connected")
        }
        return (device.path, radio, characteristic)
    }

    private func update(_ characteristic: GATTTable.Characteristic, on device: ObjectPath) {
        devices[device]?.gatt?.characteristics[characteristic.path] = characteristic
    }

    /// The D-Bus error bluetoothd sends for an ATT error code.
    static func error(forATT code: UInt8) -> DBusError {
        switch code {
        case 0x02: BlueZNames.error("NotPermitted", "Read not permitted")
        case 0x03: BlueZNames.error("NotPermitted", "Write not permitted")
        case 0x05, 0x08, 0x0F: BlueZNames.error("NotAuthorized", "Not Authorized")
        case 0x06: BlueZNames.error("NotSupported", "Not Supported")
        case 0x07: BlueZNames.error("InvalidOffset", "Invalid offset")
        case 0x0D: BlueZNames.error("InvalidValueLength", "Invalid Length")
        default:
            BlueZNames.error(
                "Failed", "Operation failed with ATT error: 0x" + (code < 0x10 ? "0" : "") + String(code, radix: 16))
        }
    }

    // MARK: - Characteristic methods

    func readValue(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, radio, characteristic) = try characteristic(for: message)
        drainAcquiredWrites(device)
        switch radios[radio].read(characteristic.uuid) {
        case .success(let bytes):
            characteristic.value = bytes
            update(characteristic, on: device)
            try connection.setProperty(
                member("Value"), to: .byteArray(bytes), interface: names.gattCharacteristic, at: characteristic.path)
            return [.byteArray(bytes)]
        case .failure(let error):
            throw Self.error(forATT: error.code)
        }
    }

    func writeValue(_ message: DBusMessage) throws -> [DBusValue] {
        let (device, radio, characteristic) = try characteristic(for: message)
        guard message.arguments.count == 2, let bytes = message.arguments[0].byteArrayValue,
            let options = message.arguments[1].stringKeyedDictionary
        else { throw BlueZNames.error("InvalidArguments", "Invalid arguments in method call") }
        guard characteristic.writeChannel == nil else { throw BlueZNames.error("NotPermitted", "Write acquired") }
        drainAcquiredWrites(device)
        let offset = options["offset"]?.integerValue ?? 0
        guard offset == 0 else { throw Self.error(forATT: 0x07) }
        let requested = options["type"]?.stringValue
        let type: SimulatedWriteType
        switch requested {
        case "command":
            guard characteristic.properties.contains(.writeWithoutResponse) else {
                throw BlueZNames.error("NotSupported", "Operation is not supported")
            }
            type = .command
        case "request", "reliable":
            guard characteristic.properties.contains(.write) else { throw Self.error(forATT: 0x03) }
            type = .request
        case nil:
            if characteristic.properties.contains(.write) {
                type = .request
            } else if characteristic.properties.contains(.writeWithoutResponse) {
                type = .command
            } else {
                throw Self.error(forATT: 0x03)
            }
        default:
            throw BlueZNames.error("InvalidArguments", "Invalid arguments in method call")
        }
        if type == .command, bytes.count > configuration.link.model.maximumWriteLength {
            throw BlueZNames.error("Failed", "Failed to initiate write")
        }
        if type == .command { radios[radio].count(\.writeValueCommands) }
        if let error = deliver(bytes, to: characteristic.uuid, type: type, device: device, radio: radio),
            type == .request
        {
            throw Self.error(forATT: error.code)
        }
        return []
    }

    /// Hands a write to the simulated device and queues what it answers.
    @discardableResult
    private func deliver(_ bytes: [UInt8], to uuid: String, type: SimulatedWriteType, device: ObjectPath, radio: Int)
        -> SimulatedATTError?
    {
        guard let generation = devices[device]?.generation else { return nil }
        let (error, outcomes) = radios[radio].write(bytes, to: uuid, type: type)
        for outcome in outcomes {
            switch outcome {
            case .notify(let characteristic, let payload, let delay):
                enqueue(
                    .notify(
                        device: device, generation: generation, characteristic: characteristic, bytes: payload,
                        delay: delay))
            case .drop(let reboot):
                enqueue(.drop(device: device, generation: generation, reboot: reboot))
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

    func acquireWrite(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, _, characteristic) = try characteristic(for: message)
        guard characteristic.properties.contains(.writeWithoutResponse) else {
            throw BlueZNames.error("NotSupported", "Operation is not supported")
        }
        drainAcquiredWrites(device)
        if let current = devices[device]?.gatt?.characteristics[characteristic.path] { characteristic = current }
        guard characteristic.writeChannel == nil else { throw BlueZNames.error("NotPermitted", "Write acquired") }
        let (ours, theirs) = try SequencedPacketChannel.makePair()
        guard let generation = devices[device]?.generation else {
            throw BlueZNames.error("NotConnected", "Not Connected")
        }
        let owner = device
        do {
            try ours.startWatching { [weak self] in self?.enqueue(.drain(device: owner, generation: generation)) }
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

    func acquireNotify(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, radio, characteristic) = try characteristic(for: message)
        guard characteristic.canNotify else { throw BlueZNames.error("NotSupported", "Operation is not supported") }
        releaseHungUpNotify(&characteristic, device: device, radio: radio)
        guard characteristic.notifyChannel == nil else { throw BlueZNames.error("NotPermitted", "Notify acquired") }
        guard characteristic.notifySenders.isEmpty else { throw BlueZNames.error("InProgress", "In Progress") }
        drainAcquiredWrites(device)
        let (ours, theirs) = try SequencedPacketChannel.makePair()
        characteristic.notifyChannel = ours
        update(characteristic, on: device)
        radios[radio].setSubscribed(characteristic.uuid, true)
        radios[radio].count(\.acquireNotifies)
        try connection.setProperties(
            [try member("NotifyAcquired"): .boolean(true), try member("Notifying"): .boolean(true)],
            interface: names.gattCharacteristic, at: characteristic.path)
        return [.unixFileDescriptor(theirs), .uint16(UInt16(clamping: configuration.link.model.mtu))]
    }

    func startNotify(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, radio, characteristic) = try characteristic(for: message)
        guard characteristic.canNotify else { throw BlueZNames.error("NotSupported", "Operation is not supported") }
        releaseHungUpNotify(&characteristic, device: device, radio: radio)
        guard characteristic.notifyChannel == nil else { throw BlueZNames.error("NotPermitted", "Notify acquired") }
        let sender = message.sender?.rawValue ?? ""
        guard !characteristic.notifySenders.contains(sender) else {
            throw BlueZNames.error("InProgress", "In Progress")
        }
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

    func stopNotify(_ message: DBusMessage) throws -> [DBusValue] {
        var (device, radio, characteristic) = try characteristic(for: message)
        let sender = message.sender?.rawValue ?? ""
        guard characteristic.notifySenders.remove(sender) != nil else {
            throw BlueZNames.error("Failed", "No notify session started")
        }
        update(characteristic, on: device)
        if !characteristic.isNotifying {
            radios[radio].setSubscribed(characteristic.uuid, false)
            try connection.setProperty(
                member("Notifying"), to: .boolean(false), interface: names.gattCharacteristic, at: characteristic.path)
        }
        return []
    }

    /// bluetoothd notices a closed AcquireNotify socket and ends that subscription.
    private func releaseHungUpNotify(_ characteristic: inout GATTTable.Characteristic, device: ObjectPath, radio: Int) {
        guard let channel = characteristic.notifyChannel, channel.isHungUp else { return }
        channel.close()
        characteristic.notifyChannel = nil
        update(characteristic, on: device)
        try? connection.setProperty(
            member("NotifyAcquired"), to: .boolean(false), interface: names.gattCharacteristic, at: characteristic.path)
        if !characteristic.isNotifying {
            radios[radio].setSubscribed(characteristic.uuid, false)
            try? connection.setProperty(
                member("Notifying"), to: .boolean(false), interface: names.gattCharacteristic, at: characteristic.path)
        }
    }

    func readDescriptor(_ message: DBusMessage) throws -> [DBusValue] {
        guard let path = message.path,
            let device = devices.values.first(where: { $0.gatt?.descriptors[path] != nil }), device.connected,
            let characteristicPath = device.gatt?.descriptors[path],
            let characteristic = device.gatt?.characteristics[characteristicPath]
        else { throw BlueZNames.error("NotConnected", "Not Connected") }
        let value: [UInt8] =
            characteristic.isNotifying
            ? (characteristic.properties.contains(.notify) ? [0x01, 0x00] : [0x02, 0x00]) : [0x00, 0x00]
        try connection.setProperty(member("Value"), to: .byteArray(value), interface: names.gattDescriptor, at: path)
        return [.byteArray(value)]
    }

    // MARK: - Notifications

    func deliverNotification(device: ObjectPath, generation: Int, characteristic uuid: String, bytes: [UInt8]) {
        guard let object = devices[device], object.generation == generation, object.connected,
            let path = object.gatt?.path(of: uuid.uppercased()),
            var characteristic = object.gatt?.characteristics[path],
            let radio = object.radio
        else { return }
        if let channel = characteristic.notifyChannel {
            if !channel.send(bytes) { releaseHungUpNotify(&characteristic, device: device, radio: radio) }
            return
        }
        guard !characteristic.notifySenders.isEmpty else { return }
        characteristic.value = bytes
        update(characteristic, on: device)
        try? connection.setProperty(
            member("Value"), to: .byteArray(bytes), interface: names.gattCharacteristic, at: path)
    }
}
