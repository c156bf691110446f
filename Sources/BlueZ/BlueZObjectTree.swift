import DBus

/// Everything BlueZ exports, decoded from `GetManagedObjects`.
public struct BlueZObjectTree: Sendable, Hashable {
    /// The adapters, sorted by path (hci0 first).
    public var adapters: [BlueZAdapter]
    /// The devices known to BlueZ.
    public var devices: [BlueZDevice]
    /// The GATT services of connected devices.
    public var services: [BlueZGattService]
    /// The GATT characteristics of connected devices.
    public var characteristics: [BlueZGattCharacteristic]

    /// Decodes a `GetManagedObjects` result; objects with malformed properties are skipped.
    init(_ objects: [ObjectPath: [String: [String: DBusValue]]]) {
        var adapters: [BlueZAdapter] = []
        var devices: [BlueZDevice] = []
        var services: [BlueZGattService] = []
        var characteristics: [BlueZGattCharacteristic] = []
        for (objectPath, interfaces) in objects {
            let path = BlueZPath(objectPath)
            if let properties = interfaces[BlueZInterfaces.adapter] {
                adapters.append(BlueZAdapter(path: path, properties: properties))
            }
            if let properties = interfaces[BlueZInterfaces.device], let device = BlueZDevice(path: path, properties: properties) {
                devices.append(device)
            }
            if let properties = interfaces[BlueZInterfaces.gattService],
                let service = BlueZGattService(path: path, properties: properties)
            {
                services.append(service)
            }
            if let properties = interfaces[BlueZInterfaces.gattCharacteristic],
                let characteristic = BlueZGattCharacteristic(path: path, properties: properties)
            {
                characteristics.append(characteristic)
            }
        }
        self.adapters = adapters.sorted { $0.path < $1.path }
        self.devices = devices.sorted { $0.path < $1.path }
        self.services = services.sorted { $0.path < $1.path }
        self.characteristics = characteristics.sorted { $0.path < $1.path }
    }

    /// The devices of one adapter.
    public func devices(of adapter: BlueZPath) -> [BlueZDevice] {
        devices.filter { $0.adapter == adapter || (adapter.isAncestor(of: $0.path)) }
    }

    /// The services of one device.
    public func services(of device: BlueZPath) -> [BlueZGattService] {
        services.filter { $0.device == device || (device.isAncestor(of: $0.path)) }
    }

    /// The characteristics of one service.
    public func characteristics(of service: BlueZPath) -> [BlueZGattCharacteristic] {
        characteristics.filter { $0.service == service || (service.isAncestor(of: $0.path)) }
    }
}
