public import DBus

/// The bus name, interfaces and error names of bluetoothd's D-Bus API: those the stand-in serves and
/// those the peripheral calls (validated once in ``BlueZVocabulary``).
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
    /// `org.bluez.Agent1`, the interface of a pairing agent.
    public static let agent = "org.bluez.Agent1"
    /// `org.bluez.ProfileManager1`.
    public static let profileManager = "org.bluez.ProfileManager1"
    /// `org.bluez.GattManager1`, where a peripheral registers its GATT application.
    public static let gattManager = "org.bluez.GattManager1"
    /// `org.bluez.LEAdvertisingManager1`, where a peripheral registers its advertisement.
    public static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    /// `org.bluez.LEAdvertisement1`, the interface of an advertisement a peripheral exports.
    public static let advertisement = "org.bluez.LEAdvertisement1"

    /// An `org.bluez.Error.<suffix>` error with `message`.
    public static func error(_ suffix: String, _ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error." + suffix, message: message)
    }
}

/// A member name from a literal known to be valid (checked by the tests that export every interface).
func member(_ name: String) throws(DBusError) -> MemberName { try MemberName(name) }
