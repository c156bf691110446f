import DBus

/// An `org.bluez.GattCharacteristic1` object as read from its properties.
public struct BlueZGattCharacteristic: Sendable, Hashable {
    /// The object path, below the service's path.
    public var path: BlueZPath
    /// The service it belongs to (`Service`).
    public var service: BlueZPath?
    /// `UUID`, canonical form.
    public var uuid: String
    /// `Flags`, e.g. `write`, `write-without-response`, `notify`, `indicate`.
    public var flags: [String]
    /// `MTU`: the ATT MTU of the link (BlueZ 5.62+), when present.
    public var mtu: Int?

    /// Decodes the properties of `org.bluez.GattCharacteristic1`; nil without a `UUID`.
    init?(path: BlueZPath, properties: [String: DBusValue]) {
        guard let uuid = properties["UUID"]?.stringValue else { return nil }
        self.path = path
        self.service = properties["Service"]?.objectPathValue.map(BlueZPath.init)
        self.uuid = BlueZUUID.canonical(uuid)
        self.flags = properties["Flags"]?.stringArrayValue ?? []
        self.mtu = properties["MTU"]?.integerValue.map { Int($0) }
    }

    /// Whether it can notify (not only indicate), the condition for AcquireNotify.
    public var canNotify: Bool { flags.contains("notify") }
}
