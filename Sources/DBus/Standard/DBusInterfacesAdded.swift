/// A decoded `org.freedesktop.DBus.ObjectManager.InterfacesAdded` signal.
public struct DBusInterfacesAdded: Sendable, Equatable {
    /// The object that gained interfaces.
    public var object: ObjectPath
    /// Each added interface with its properties, values unwrapped from their variants.
    public var interfaces: [String: [String: DBusValue]]

    /// Decodes the signal; `nil` when `message` is not a well-formed `InterfacesAdded`.
    public init?(_ message: DBusMessage) {
        guard message.type == .signal, message.interface == StandardInterfaces.objectManager,
            message.member == StandardInterfaces.interfacesAdded, message.signature == "oa{sa{sv}}",
            let object = message.arguments[0].objectPathValue, let interfaces = Self.interfaceMap(message.arguments[1])
        else { return nil }
        self.object = object
        self.interfaces = interfaces
    }

    /// An `a{sa{sv}}` value as nested dictionaries with the variants unwrapped; `nil` for any other type.
    static func interfaceMap(_ value: DBusValue) -> [String: [String: DBusValue]]? {
        guard value.signature == "a{sa{sv}}", let entries = value.dictionaryEntries else { return nil }
        var interfaces: [String: [String: DBusValue]] = [:]
        for entry in entries {
            guard let name = entry.key.stringValue, let properties = DBusPropertiesChanged.propertyMap(entry.value)
            else { return nil }
            interfaces[name] = properties
        }
        return interfaces
    }
}
