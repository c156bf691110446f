import DBus

/// An `org.bluez.GattService1` object as read from its properties.
public struct BlueZGattService: Sendable, Hashable {
    /// The object path, below the device's path.
    public var path: BlueZPath
    /// The device it belongs to (`Device`).
    public var device: BlueZPath?
    /// `UUID`, canonical form.
    public var uuid: String
    /// `Primary`.
    public var isPrimary: Bool

    /// Decodes the properties of `org.bluez.GattService1`; nil without a `UUID`.
    init?(path: BlueZPath, properties: [String: DBusValue]) {
        guard let uuid = properties["UUID"]?.stringValue else { return nil }
        self.path = path
        self.device = properties["Device"]?.objectPathValue.map(BlueZPath.init)
        self.uuid = BlueZUUID.canonical(uuid)
        self.isPrimary = properties["Primary"]?.boolValue ?? true
    }
}
