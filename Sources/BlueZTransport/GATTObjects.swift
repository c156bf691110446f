import BlueZ

/// The GATT services and characteristics bluetoothd exports for one adapter's devices, as its signals said: from the
/// `GetManagedObjects` the transport opens with, then `InterfacesAdded` and `InterfacesRemoved`
/// (``AnnouncedGATTObjects`` keeps them as the signals are read).
///
/// bluetoothd keeps a device's GATT objects from one connection to the next (`src/gatt-client.c`: a service goes
/// only when the device's database loses it, `btd_gatt_client_service_removed`, or with the device), and exports a
/// connection's new ones before it sets `ServicesResolved` (`src/device.c` `gatt_client_ready_cb`:
/// `btd_gatt_client_ready`, then `device_svc_resolved`, though their signals may go out in the other order). So a
/// connected device's characteristics are here without asking bluetoothd for every object it has, each time, which on
/// a host that knows many devices means decoding all of them.
struct GATTObjects {
    private var services: [BlueZPath: BlueZGattService] = [:]
    private var characteristics: [BlueZPath: BlueZGattCharacteristic] = [:]

    init() {}

    /// The objects of a `GetManagedObjects` reply below `adapter`.
    init(_ tree: BlueZObjectTree, below adapter: BlueZPath) {
        for service in tree.services where adapter.isAncestor(of: service.path) { services[service.path] = service }
        for characteristic in tree.characteristics where adapter.isAncestor(of: characteristic.path) {
            characteristics[characteristic.path] = characteristic
        }
    }

    mutating func add(_ service: BlueZGattService) { services[service.path] = service }

    mutating func add(_ characteristic: BlueZGattCharacteristic) { characteristics[characteristic.path] = characteristic }

    /// Forgets the object at `path` and everything below it (a removed service takes its characteristics, a removed
    /// device its services).
    mutating func remove(below path: BlueZPath) {
        services = services.filter { $0.key != path && !path.isAncestor(of: $0.key) }
        characteristics = characteristics.filter { $0.key != path && !path.isAncestor(of: $0.key) }
    }

    mutating func removeAll() {
        services = [:]
        characteristics = [:]
    }

    /// One characteristic of a device (the first by path), if it has any here.
    func anyCharacteristic(of device: BlueZPath) -> BlueZGattCharacteristic? {
        characteristics.values.filter { device.isAncestor(of: $0.path) }.min { $0.path < $1.path }
    }

    /// A device's services, by path.
    func services(of device: BlueZPath) -> [BlueZGattService] {
        services.values.filter { $0.device == device || device.isAncestor(of: $0.path) }.sorted { $0.path < $1.path }
    }

    /// A service's characteristics, by path.
    func characteristics(of service: BlueZPath) -> [BlueZGattCharacteristic] {
        characteristics.values.filter { $0.service == service || service.isAncestor(of: $0.path) }.sorted { $0.path < $1.path }
    }
}
