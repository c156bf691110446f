import DBus

/// The names of bluetoothd's API that the peripheral uses, validated once at start-up.
struct BlueZNames: Sendable {
    let service: BusName
    let adapter: InterfaceName
    let device: InterfaceName
    let gattManager: InterfaceName
    let advertisingManager: InterfaceName
    let gattService: InterfaceName
    let gattCharacteristic: InterfaceName
    let advertisement: InterfaceName
    let value: MemberName
    let notifying: MemberName
    let writeAcquired: MemberName
    let notifyAcquired: MemberName

    init() throws(DBusError) {
        service = try BusName("org.bluez")
        adapter = try InterfaceName("org.bluez.Adapter1")
        device = try InterfaceName("org.bluez.Device1")
        gattManager = try InterfaceName("org.bluez.GattManager1")
        advertisingManager = try InterfaceName("org.bluez.LEAdvertisingManager1")
        gattService = try InterfaceName("org.bluez.GattService1")
        gattCharacteristic = try InterfaceName("org.bluez.GattCharacteristic1")
        advertisement = try InterfaceName("org.bluez.LEAdvertisement1")
        value = try MemberName("Value")
        notifying = try MemberName("Notifying")
        writeAcquired = try MemberName("WriteAcquired")
        notifyAcquired = try MemberName("NotifyAcquired")
    }

    /// The object path of adapter `name` (e.g. `hci1`).
    func adapterPath(_ name: String) throws(DBusError) -> ObjectPath {
        try ObjectPath("/org/bluez/" + name)
    }
}
