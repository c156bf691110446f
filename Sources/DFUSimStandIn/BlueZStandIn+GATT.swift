import DBus
import DFUSimulator

extension BlueZStandIn {
    /// The interfaces of one GATT object of `table`.
    func gattInterfaces(at path: ObjectPath, table: GATTTable, device: ObjectPath) throws(DBusError) -> [DBusInterface]
    {
        if let service = table.services.first(where: { $0.path == path }) {
            return [try serviceInterface(service, device: device)]
        }
        if let characteristicPath = table.descriptors[path] {
            return [try descriptorInterface(at: path, characteristic: characteristicPath, table: table)]
        }
        guard let characteristic = table.characteristics[path] else { return [] }
        return [try characteristicInterface(characteristic)]
    }

    /// A primary service (`Handle` only from 5.70).
    private func serviceInterface(_ service: GATTTable.Service, device: ObjectPath) throws(DBusError) -> DBusInterface {
        DBusInterface(
            names.gattService,
            properties: [
                DBusProperty(try member("UUID"), value: .string(service.uuid.lowercased())),
                DBusProperty(try member("Device"), value: .objectPath(device)),
                DBusProperty(try member("Primary"), value: .boolean(true)),
                DBusProperty(try member("Includes"), value: .array(elementSignature: "o", elements: [])),
            ] + (exportsHandles ? [DBusProperty(try member("Handle"), value: .uint16(service.handle))] : []))
    }

    /// A characteristic's Client Characteristic Configuration descriptor.
    private func descriptorInterface(at path: ObjectPath, characteristic characteristicPath: ObjectPath, table: GATTTable)
        throws(DBusError) -> DBusInterface
    {
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
                    handler: handler { standIn, message in try await standIn.writeDescriptor(message) }),
            ],
            properties: [
                DBusProperty(try member("UUID"), value: .string("00002902-0000-1000-8000-00805f9b34fb")),
                DBusProperty(try member("Characteristic"), value: .objectPath(characteristicPath)),
                DBusProperty(try member("Value"), value: .byteArray([])),
            ]
                + (exportsHandles
                    ? [DBusProperty(try member("Handle"), value: .uint16(table.descriptorHandles[path] ?? 0))]
                    : []))
    }

    /// A characteristic with the properties and methods bluetoothd 5.66 gives it.
    private func characteristicInterface(_ characteristic: GATTTable.Characteristic) throws(DBusError) -> DBusInterface {
        // The properties of BlueZ 5.66 `src/gatt-client.c` `characteristic_properties`, each with its
        // `*_exists` rule; `Handle` only from 5.70, `MTU` only from 5.62.
        var properties = [
            DBusProperty(try member("UUID"), value: .string(characteristic.uuid.lowercased())),
            DBusProperty(try member("Service"), value: .objectPath(characteristic.servicePath)),
            DBusProperty(try member("Value"), value: .byteArray([])),
        ]
        if exportsHandles { properties.append(DBusProperty(try member("Handle"), value: .uint16(characteristic.handle))) }
        if characteristic.canNotify {
            properties.append(DBusProperty(try member("Notifying"), value: .boolean(false)))
        }
        properties.append(DBusProperty(try member("Flags"), value: .stringArray(characteristic.flags)))
        if characteristic.properties.contains(.writeWithoutResponse) {
            properties.append(DBusProperty(try member("WriteAcquired"), value: .boolean(false)))
        }
        if characteristic.properties.contains(.notify) {
            properties.append(DBusProperty(try member("NotifyAcquired"), value: .boolean(false)))
        }
        if configuration.host.version.exportsMTU {
            properties.append(
                DBusProperty(try member("MTU"), value: .uint16(UInt16(clamping: configuration.link.model.mtu))))
        }
        let options = DBusArgument("options", "a{sv}")
        return DBusInterface(
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
    }

    /// Whether GATT objects export `Handle` (bluetoothd 5.70 and later).
    var exportsHandles: Bool { configuration.host.version.exportsHandles }

    // MARK: - Lookup

    /// The device and characteristic a call addresses, connected or not.
    func cachedCharacteristic(for message: DBusMessage) throws -> (
        device: DeviceObject, GATTTable.Characteristic
    ) {
        guard let path = message.path,
            let device = devices.values.first(where: { $0.gatt?.characteristics[path] != nil }),
            let characteristic = device.gatt?.characteristics[path]
        else { throw BlueZNames.error("Failed", "Not connected") }
        return (device, characteristic)
    }

    /// The connected device, its radio, and the characteristic a call addresses; a cached object of a
    /// device that is not connected answers `Failed "Not connected"` (`src/gatt-client.c`, every
    /// method that needs the link).
    func characteristic(for message: DBusMessage) throws -> (
        device: ObjectPath, radio: Int, GATTTable.Characteristic
    ) {
        let (device, characteristic) = try cachedCharacteristic(for: message)
        guard device.connected, let radio = device.radio else { throw BlueZNames.error("Failed", "Not connected") }
        return (device.path, radio, characteristic)
    }

    func update(_ characteristic: GATTTable.Characteristic, on device: ObjectPath) {
        devices[device]?.gatt?.characteristics[characteristic.path] = characteristic
    }

    /// The D-Bus error bluetoothd sends for an ATT error code (BlueZ 5.66 `src/gatt-client.c`
    /// `create_gatt_dbus_error`, messages from `src/error.c`).
    static func error(forATT code: UInt8) -> DBusError {
        switch code {
        case 0x02: BlueZNames.error("NotPermitted", "Read not permitted")
        case 0x03: BlueZNames.error("NotPermitted", "Write not permitted")
        case 0x05, 0x0F, 0x0C: BlueZNames.error("NotPermitted", "Not paired")
        case 0x08: BlueZNames.error("NotAuthorized", "Operation Not Authorized")
        case 0x06: BlueZNames.error("NotSupported", "Operation is not supported")
        case 0x07: BlueZNames.error("InvalidArguments", "Invalid offset")
        case 0x0D: BlueZNames.error("InvalidArguments", "Invalid Length")
        case 0x00: BlueZNames.error("Failed", "Operation failed")
        default:
            BlueZNames.error(
                "Failed", "Operation failed with ATT error: 0x" + (code < 0x10 ? "0" : "") + String(code, radix: 16))
        }
    }

    // MARK: - Notifications

    func deliverNotification(device: ObjectPath, generation: Int, characteristic uuid: String, bytes: [UInt8]) {
        guard let object = devices[device], object.generation == generation, object.connected,
            let path = object.gatt?.path(of: uuid.uppercased()),
            var characteristic = object.gatt?.characteristics[path],
            let radio = object.radio
        else { return }
        radios[radio].delivered(bytes, on: uuid)
        if let channel = characteristic.notifyChannel {
            if channel.send(bytes) {
                observed.notificationsDelivered += 1
            } else {
                releaseHungUpNotify(&characteristic, device: device, radio: radio)
            }
            return
        }
        guard !characteristic.notifySenders.isEmpty else { return }
        observed.notificationsDelivered += 1
        characteristic.value = bytes
        update(characteristic, on: device)
        try? connection.setProperty(
            member("Value"), to: .byteArray(bytes), interface: names.gattCharacteristic, at: path)
    }
}
