/// A decoded `org.freedesktop.DBus.Properties.PropertiesChanged` signal.
public struct DBusPropertiesChanged: Sendable, Equatable {
    /// The object whose properties changed.
    public var path: ObjectPath
    /// The interface the properties belong to.
    public var interface: String
    /// New values, unwrapped from their variants.
    public var changed: [String: DBusValue]
    /// Properties that changed without their new value being sent (or that became absent).
    public var invalidated: [String]

    /// Decodes the signal; `nil` when `message` is not a well-formed `PropertiesChanged`.
    public init?(_ message: DBusMessage) {
        guard message.type == .signal, message.interface == StandardInterfaces.properties,
            message.member == StandardInterfaces.propertiesChanged, let path = message.path,
            message.signature == "sa{sv}as", let interface = message.arguments[0].stringValue,
            let changed = Self.propertyMap(message.arguments[1]),
            let invalidated = message.arguments[2].stringArrayValue
        else { return nil }
        self.path = path
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
    }

    /// An `a{sv}` value as a dictionary with the variants unwrapped; `nil` for any other type.
    static func propertyMap(_ value: DBusValue) -> [String: DBusValue]? {
        guard value.signature == "a{sv}", let entries = value.dictionaryEntries else { return nil }
        var properties: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            properties[key] = entry.value.unwrappingOneVariant
        }
        return properties
    }
}
