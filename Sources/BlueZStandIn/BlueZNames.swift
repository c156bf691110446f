public import DBus

/// The bus name, interfaces and error names of bluetoothd's D-Bus API, as served by the stand-in.
public enum BlueZNames {
    /// `org.bluez`.
    public static let service = "org.bluez"
    /// `/org/bluez`, home of AgentManager1 and ProfileManager1.
    public static let root = "/org/bluez"
    /// `org.bluez.Adapter1`.
    public static let adapter = "org.bluez.Adapter1"
    /// `org.bluez.Device1`.
    public static let device = "org.bluez.Device1"
    /// `org.bluez.GattService1`.
    public static let gattService = "org.bluez.GattService1"
    /// `org.bluez.GattCharacteristic1`.
    public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    /// `org.bluez.GattDescriptor1`.
    public static let gattDescriptor = "org.bluez.GattDescriptor1"
    /// `org.bluez.AgentManager1`.
    public static let agentManager = "org.bluez.AgentManager1"
    /// `org.bluez.ProfileManager1`.
    public static let profileManager = "org.bluez.ProfileManager1"

    /// An `org.bluez.Error.<suffix>` error with `message`.
    public static func error(_ suffix: String, _ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error." + suffix, message: message)
    }
}

/// The validated names the stand-in uses, made once.
struct BlueZVocabulary: Sendable {
    let service: BusName
    let root: ObjectPath
    let adapter: InterfaceName
    let device: InterfaceName
    let gattService: InterfaceName
    let gattCharacteristic: InterfaceName
    let gattDescriptor: InterfaceName
    let agentManager: InterfaceName
    let profileManager: InterfaceName

    init() throws(DBusError) {
        service = try BusName(BlueZNames.service)
        root = try ObjectPath(BlueZNames.root)
        adapter = try InterfaceName(BlueZNames.adapter)
        device = try InterfaceName(BlueZNames.device)
        gattService = try InterfaceName(BlueZNames.gattService)
        gattCharacteristic = try InterfaceName(BlueZNames.gattCharacteristic)
        gattDescriptor = try InterfaceName(BlueZNames.gattDescriptor)
        agentManager = try InterfaceName(BlueZNames.agentManager)
        profileManager = try InterfaceName(BlueZNames.profileManager)
    }
}

/// A member name from a literal known to be valid (checked by the tests that export every interface).
func member(_ name: String) throws(DBusError) -> MemberName { try MemberName(name) }
