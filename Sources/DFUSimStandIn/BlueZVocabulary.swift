public import DBus

/// The names of ``BlueZNames`` validated once, for the stand-in (which serves them) and the
/// peripheral (which calls bluetoothd with them).
public struct BlueZVocabulary: Sendable {
    public let service: BusName
    /// `/org/bluez`.
    public let root: ObjectPath
    public let adapter: InterfaceName
    public let device: InterfaceName
    public let gattService: InterfaceName
    public let gattCharacteristic: InterfaceName
    public let gattDescriptor: InterfaceName
    public let agentManager: InterfaceName
    public let profileManager: InterfaceName
    public let gattManager: InterfaceName
    public let advertisingManager: InterfaceName
    public let advertisement: InterfaceName
    /// The GATT properties a peripheral keeps up to date.
    public let value: MemberName
    public let notifying: MemberName
    public let writeAcquired: MemberName
    public let notifyAcquired: MemberName

    /// Validates every name.
    public init() throws(DBusError) {
        service = try BusName(BlueZNames.service)
        root = try ObjectPath(BlueZNames.root)
        adapter = try InterfaceName(BlueZNames.adapter)
        device = try InterfaceName(BlueZNames.device)
        gattService = try InterfaceName(BlueZNames.gattService)
        gattCharacteristic = try InterfaceName(BlueZNames.gattCharacteristic)
        gattDescriptor = try InterfaceName(BlueZNames.gattDescriptor)
        agentManager = try InterfaceName(BlueZNames.agentManager)
        profileManager = try InterfaceName(BlueZNames.profileManager)
        gattManager = try InterfaceName(BlueZNames.gattManager)
        advertisingManager = try InterfaceName(BlueZNames.advertisingManager)
        advertisement = try InterfaceName(BlueZNames.advertisement)
        value = try MemberName("Value")
        notifying = try MemberName("Notifying")
        writeAcquired = try MemberName("WriteAcquired")
        notifyAcquired = try MemberName("NotifyAcquired")
    }

    /// The object path of adapter `name` (e.g. `hci1`).
    public func adapterPath(_ name: String) throws(DBusError) -> ObjectPath {
        try ObjectPath(BlueZNames.root + "/" + name)
    }
}
