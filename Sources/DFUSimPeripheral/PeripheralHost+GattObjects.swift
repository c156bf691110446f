import DBus
import DFUCore
import DFUSimStandIn
import DFUSimulator
import IOLoop

/// The D-Bus objects the host exports to bluetoothd: the GATT services and characteristics of the
/// current role, and its LE advertisement.
extension PeripheralHost {
    func serviceInterface(_ service: GattLayout.Service) throws(DBusError) -> DBusInterface {
        DBusInterface(
            names.gattService,
            properties: [
                DBusProperty(try MemberName("UUID"), value: .string(service.uuid)),
                DBusProperty(try MemberName("Primary"), value: .boolean(true)),
            ])
    }

    func characteristicInterface(_ characteristic: GattLayout.Characteristic, servicePath: ObjectPath)
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

    func advertisementInterface(_ firmware: any SimulatedFirmware) throws(DBusError) -> DBusInterface {
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
}
