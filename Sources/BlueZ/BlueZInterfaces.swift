/// The org.bluez names this client uses.
public enum BlueZInterfaces {
    /// The bus name bluetoothd owns.
    public static let service = "org.bluez"
    /// `org.bluez.Adapter1`.
    public static let adapter = "org.bluez.Adapter1"
    /// `org.bluez.Device1`.
    public static let device = "org.bluez.Device1"
    /// `org.bluez.GattService1`.
    public static let gattService = "org.bluez.GattService1"
    /// `org.bluez.GattCharacteristic1`.
    public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    /// `org.bluez.AgentManager1`, on `/org/bluez`.
    public static let agentManager = "org.bluez.AgentManager1"
    /// `org.bluez.Agent1`, the interface a pairing agent exports.
    public static let agent = "org.bluez.Agent1"
}
