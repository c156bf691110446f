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

    /// Decodes the signal; `nil` when `message` is not a well-formed `PropertiesChanged` (arguments `sa{sv}as`, matched
    /// by their cases rather than by building the message's signature).
    public init?(_ message: DBusMessage) {
        guard message.type == .signal, message.interface == StandardInterfaces.properties,
            message.member == StandardInterfaces.propertiesChanged, let path = message.path,
            message.arguments.count == 3, case .string(let interface) = message.arguments[0],
            let changed = Self.propertyMap(message.arguments[1]),
            case .array(let elementSignature, let elements) = message.arguments[2], elementSignature == "s"
        else { return nil }
        var invalidated: [String] = []
        invalidated.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let name) = element else { return nil }
            invalidated.append(name)
        }
        self.path = path
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
    }

    /// An `a{sv}` value as a dictionary with the variants unwrapped; `nil` for any other type.
    static func propertyMap(_ value: DBusValue) -> [String: DBusValue]? {
        guard case .dictionary(let keySignature, let valueSignature, let entries) = value, keySignature == "s",
            valueSignature == "v"
        else { return nil }
        var properties: [String: DBusValue] = [:]
        properties.reserveCapacity(entries.count)
        for entry in entries {
            guard case .string(let key) = entry.key else { return nil }
            properties[key] = entry.value.unwrappingOneVariant
        }
        return properties
    }
}
