import DBus

/// An `org.bluez.Device1` object as read from its properties.
public struct BlueZDevice: Sendable, Hashable {
    /// The object path, e.g. `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`.
    public var path: BlueZPath
    /// The adapter it belongs to (`Adapter`).
    public var adapter: BlueZPath?
    /// `Address`, upper-case with colons.
    public var address: String
    /// `AddressType`: `public` or `random`.
    public var addressType: String?
    /// `Name`: the advertised or GAP name, when known.
    public var name: String?
    /// `Alias`: the name BlueZ shows (the name, or a user-set alias, or the address).
    public var alias: String?
    /// `RSSI` in dBm: present only while the device is heard in the current discovery.
    public var rssi: Int?
    /// `UUIDs`: advertised (or resolved) service UUIDs, canonical form.
    public var serviceUUIDs: [String]
    /// `Connected`.
    public var isConnected: Bool
    /// `ServicesResolved`: the GATT objects are complete.
    public var servicesResolved: Bool
    /// `Paired`.
    public var isPaired: Bool
    /// `Bonded` (BlueZ 5.66+); falls back to `Paired` when absent.
    public var isBonded: Bool

    /// Decodes the properties of `org.bluez.Device1`; nil without an `Address`.
    init?(path: BlueZPath, properties: [String: DBusValue]) {
        guard let address = properties["Address"]?.stringValue else { return nil }
        self.path = path
        self.adapter = properties["Adapter"]?.objectPathValue.map(BlueZPath.init)
        self.address = address.uppercased()
        self.addressType = properties["AddressType"]?.stringValue
        self.name = properties["Name"]?.stringValue
        self.alias = properties["Alias"]?.stringValue
        self.rssi = properties["RSSI"]?.integerValue.map { Int($0) }
        self.serviceUUIDs = (properties["UUIDs"]?.stringArrayValue ?? []).map(BlueZUUID.canonical)
        self.servicesResolved = properties["ServicesResolved"]?.boolValue ?? false
        self.isConnected = (properties["Connected"]?.boolValue ?? false) || servicesResolved
        self.isPaired = properties["Paired"]?.boolValue ?? false
        self.isBonded = properties["Bonded"]?.boolValue ?? isPaired
    }

    /// Applies the changed properties of a `PropertiesChanged` signal; `ServicesResolved` = true
    /// also means connected.
    mutating func apply(changed: [String: DBusValue], invalidated: [String]) {
        if let value = changed["Name"]?.stringValue { name = value }
        if let value = changed["Alias"]?.stringValue { alias = value }
        if let value = changed["RSSI"]?.integerValue { rssi = Int(value) }
        if let value = changed["UUIDs"]?.stringArrayValue { serviceUUIDs = value.map(BlueZUUID.canonical) }
        if let value = changed["Connected"]?.boolValue { isConnected = value }
        if let value = changed["ServicesResolved"]?.boolValue {
            servicesResolved = value
            // Services resolve only over a live link. bluetoothd 5.66 was seen (in the VM suite)
            // to connect a device it had just discovered without ever signalling Connected = true
            // ("device_add_connection() ... is already connected"), so this is the only sign of it.
            if value { isConnected = true }
        }
        if let value = changed["Paired"]?.boolValue { isPaired = value }
        if let value = changed["Bonded"]?.boolValue { isBonded = value }
        if invalidated.contains("RSSI") { rssi = nil }
    }
}
