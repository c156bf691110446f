/// Client helpers for the standard `org.freedesktop.DBus.Properties` and `ObjectManager` interfaces.
extension DBusClient {
    /// Reads one property, unwrapped from its variant.
    ///
    /// The corresponding D-Bus method is `org.freedesktop.DBus.Properties.Get`.
    public func property(
        _ name: String,
        of interface: InterfaceName,
        at path: ObjectPath,
        destination: BusName?,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> DBusValue {
        let reply = try await call(
            destination: destination, path: path, interface: StandardInterfaces.properties,
            member: MemberName(unchecked: "Get"), arguments: [.string(interface.rawValue), .string(name)],
            timeout: timeout)
        guard reply.count == 1, case .variant(let value) = reply[0] else {
            throw DBusError.invalidArguments("Properties.Get returned \"\(DBusValue.signature(of: reply))\", not \"v\"")
        }
        return value
    }

    /// Reads every property of an interface, values unwrapped from their variants.
    ///
    /// The corresponding D-Bus method is `org.freedesktop.DBus.Properties.GetAll`.
    public func allProperties(
        of interface: InterfaceName,
        at path: ObjectPath,
        destination: BusName?,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [String: DBusValue] {
        let reply = try await call(
            destination: destination, path: path, interface: StandardInterfaces.properties,
            member: MemberName(unchecked: "GetAll"), arguments: [.string(interface.rawValue)], timeout: timeout)
        guard reply.count == 1, let properties = DBusPropertiesChanged.propertyMap(reply[0]) else {
            throw DBusError.invalidArguments(
                "Properties.GetAll returned \"\(DBusValue.signature(of: reply))\", not \"a{sv}\"")
        }
        return properties
    }

    /// Writes one property (the value is wrapped in a variant).
    ///
    /// The corresponding D-Bus method is `org.freedesktop.DBus.Properties.Set`.
    public func setProperty(
        _ name: String,
        of interface: InterfaceName,
        at path: ObjectPath,
        to value: DBusValue,
        destination: BusName?,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) {
        _ = try await call(
            destination: destination, path: path, interface: StandardInterfaces.properties,
            member: MemberName(unchecked: "Set"),
            arguments: [.string(interface.rawValue), .string(name), .variant(value)],
            timeout: timeout)
    }

    /// Lists every object below a manager with its interfaces and their properties (values unwrapped).
    ///
    /// The corresponding D-Bus method is `org.freedesktop.DBus.ObjectManager.GetManagedObjects`.
    public func managedObjects(
        at path: ObjectPath = .root,
        destination: BusName?,
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [ObjectPath: [String: [String: DBusValue]]] {
        let reply = try await call(
            destination: destination, path: path, interface: StandardInterfaces.objectManager,
            member: MemberName(unchecked: "GetManagedObjects"), arguments: [], timeout: timeout)
        guard reply.count == 1, let entries = reply[0].dictionaryEntries, reply[0].signature == "a{oa{sa{sv}}}" else {
            throw DBusError.invalidArguments(
                "GetManagedObjects returned \"\(DBusValue.signature(of: reply))\", not \"a{oa{sa{sv}}}\"")
        }
        var objects: [ObjectPath: [String: [String: DBusValue]]] = [:]
        for entry in entries {
            guard let objectPath = entry.key.objectPathValue,
                let interfaces = DBusInterfacesAdded.interfaceMap(entry.value)
            else { continue }
            objects[objectPath] = interfaces
        }
        return objects
    }
}
