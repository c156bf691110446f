public import DBus

/// An `org.bluez.GattService1` object as read from its properties.
public struct BlueZGattService: Sendable, Hashable {
    /// The object path, below the device's path.
    public var path: ObjectPath
    /// The device it belongs to (`Device`).
    public var device: ObjectPath?
    /// `UUID`, canonical form.
    public var uuid: String
    /// `Primary`.
    public var isPrimary: Bool

    /// Decodes the properties of `org.bluez.GattService1`; nil without a `UUID`.
    public init?(path: ObjectPath, properties: [String: DBusValue]) {
        guard let uuid = properties["UUID"]?.stringValue else { return nil }
        self.path = path
        self.device = properties["Device"]?.objectPathValue
        self.uuid = BlueZUUID.canonical(uuid)
        self.isPrimary = properties["Primary"]?.boolValue ?? true
    }
}
