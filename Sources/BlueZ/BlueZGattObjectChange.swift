import DBus

/// A GATT service or characteristic bluetoothd exported or stopped exporting (ObjectManager's `InterfacesAdded`,
/// `InterfacesRemoved`): a device's database as bluetoothd discovered it, or its cache kept it.
public enum BlueZGattObjectChange: Sendable, Hashable {
    /// A service was exported (its characteristics follow, each in a signal of its own).
    case serviceAdded(BlueZGattService)
    /// A characteristic was exported.
    case characteristicAdded(BlueZGattCharacteristic)
    /// A service or characteristic is no longer exported (the device's database changed, or the device went).
    case removed(BlueZPath)

    /// The change one signal carries; nil for other signals.
    static func decode(_ message: DBusMessage) -> BlueZGattObjectChange? {
        if let added = DBusInterfacesAdded(message) {
            let path = BlueZPath(added.object)
            if let properties = added.interfaces[BlueZInterfaces.gattService],
                let service = BlueZGattService(path: path, properties: properties)
            {
                return .serviceAdded(service)
            }
            if let properties = added.interfaces[BlueZInterfaces.gattCharacteristic],
                let characteristic = BlueZGattCharacteristic(path: path, properties: properties)
            {
                return .characteristicAdded(characteristic)
            }
            return nil
        }
        if let removed = DBusInterfacesRemoved(message),
            removed.interfaces.contains(BlueZInterfaces.gattService)
                || removed.interfaces.contains(BlueZInterfaces.gattCharacteristic)
        {
            return .removed(BlueZPath(removed.object))
        }
        return nil
    }
}
