import DBus

/// What bluetoothd announced below `/org/bluez`, decoded: the BlueZ layer reads the D-Bus signals
/// (ObjectManager's InterfacesAdded/InterfacesRemoved, Properties' PropertiesChanged) so that its users
/// deal only in devices, adapters and characteristic values.
public enum BlueZEvent: Sendable, Hashable {
    /// An adapter appeared (plugged in, or announced by a restarted bluetoothd).
    case adapterAdded(BlueZPath)
    /// An adapter went away (unplugged).
    case adapterRemoved(BlueZPath)
    /// An adapter's `Powered` changed.
    case adapterPowered(BlueZPath, Bool)
    /// A device appeared (discovered, or known already when bluetoothd started).
    case deviceAdded(BlueZDevice)
    /// A device went away (removed, or expired after discovery).
    case deviceRemoved(BlueZPath)
    /// Some of a device's properties changed.
    case deviceChanged(BlueZDeviceChange)
    /// A characteristic's `Value` changed: a notification or indication through `StartNotify`.
    case valueChanged(characteristic: BlueZPath, value: [UInt8])
    /// A characteristic's `NotifyAcquired` became false: bluetoothd has taken back its AcquireNotify descriptor
    /// (its end hung up, or the link went down).
    case notifyReleased(characteristic: BlueZPath)

    /// The events one signal carries (none for signals about other interfaces; GATT objects exported or removed are
    /// ``BlueZGattObjectChange``s).
    static func decode(_ message: DBusMessage) -> [BlueZEvent] {
        if let added = DBusInterfacesAdded(message) {
            var events: [BlueZEvent] = []
            let path = BlueZPath(added.object)
            if added.interfaces[BlueZInterfaces.adapter] != nil { events.append(.adapterAdded(path)) }
            if let properties = added.interfaces[BlueZInterfaces.device],
                let device = BlueZDevice(path: path, properties: properties)
            {
                events.append(.deviceAdded(device))
            }
            return events
        }
        if let removed = DBusInterfacesRemoved(message) {
            var events: [BlueZEvent] = []
            if removed.interfaces.contains(BlueZInterfaces.device) { events.append(.deviceRemoved(BlueZPath(removed.object))) }
            if removed.interfaces.contains(BlueZInterfaces.adapter) { events.append(.adapterRemoved(BlueZPath(removed.object))) }
            return events
        }
        if let changed = DBusPropertiesChanged(message) {
            switch changed.interface {
            case BlueZInterfaces.device:
                return [.deviceChanged(BlueZDeviceChange(path: BlueZPath(changed.path), changed: changed.changed,
                                                         invalidated: changed.invalidated))]
            case BlueZInterfaces.gattCharacteristic:
                var events: [BlueZEvent] = []
                if let value = changed.changed["Value"]?.byteArrayValue {
                    events.append(.valueChanged(characteristic: BlueZPath(changed.path), value: value))
                }
                if changed.changed["NotifyAcquired"]?.boolValue == false {
                    events.append(.notifyReleased(characteristic: BlueZPath(changed.path)))
                }
                return events
            case BlueZInterfaces.adapter:
                guard let powered = changed.changed["Powered"]?.boolValue else { return [] }
                return [.adapterPowered(BlueZPath(changed.path), powered)]
            default:
                return []
            }
        }
        return []
    }
}

/// One `PropertiesChanged` of a `org.bluez.Device1`, with what a client acts on already read out.
public struct BlueZDeviceChange: Sendable, Hashable {
    /// The device.
    public let path: BlueZPath
    /// `Connected`, when it changed.
    public let connected: Bool?
    /// `ServicesResolved`, when it changed.
    public let servicesResolved: Bool?
    /// Whether the change came from an advertisement (RSSI, manufacturer or service data, TX power).
    public let advertised: Bool
    private let changed: [String: DBusValue]
    private let invalidated: [String]

    init(path: BlueZPath, changed: [String: DBusValue], invalidated: [String]) {
        self.path = path
        self.changed = changed
        self.invalidated = invalidated
        connected = changed["Connected"]?.boolValue
        servicesResolved = changed["ServicesResolved"]?.boolValue
        advertised = ["RSSI", "ManufacturerData", "ServiceData", "TxPower"].contains { changed[$0] != nil }
    }

    /// `device` with this change applied.
    public func applied(to device: BlueZDevice) -> BlueZDevice {
        var updated = device
        updated.apply(changed: changed, invalidated: invalidated)
        return updated
    }
}
