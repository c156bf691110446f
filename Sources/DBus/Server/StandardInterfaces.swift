/// Names and descriptions of the `org.freedesktop.DBus.*` interfaces every exported object gets.
enum StandardInterfaces {
    static let introspectable = InterfaceName(unchecked: "org.freedesktop.DBus.Introspectable")
    static let properties = InterfaceName(unchecked: "org.freedesktop.DBus.Properties")
    static let objectManager = InterfaceName(unchecked: "org.freedesktop.DBus.ObjectManager")
    static let peer = InterfaceName(unchecked: "org.freedesktop.DBus.Peer")

    static let propertiesChanged = MemberName(unchecked: "PropertiesChanged")
    static let interfacesAdded = MemberName(unchecked: "InterfacesAdded")
    static let interfacesRemoved = MemberName(unchecked: "InterfacesRemoved")

    /// Descriptions used only to generate introspection XML (the connection answers these itself).
    static let introspectableDescription = DBusInterface(
        introspectable,
        methods: [method("Introspect", outputs: [DBusArgument("xml", "s")])])

    static let propertiesDescription = DBusInterface(
        properties,
        methods: [
            method(
                "Get", inputs: [DBusArgument("interface", "s"), DBusArgument("name", "s")],
                outputs: [DBusArgument("value", "v")]),
            method(
                "Set", inputs: [DBusArgument("interface", "s"), DBusArgument("name", "s"), DBusArgument("value", "v")]),
            method("GetAll", inputs: [DBusArgument("interface", "s")], outputs: [DBusArgument("properties", "a{sv}")]),
        ],
        signals: [
            DBusSignalDescription(
                propertiesChanged,
                arguments: [
                    DBusArgument("interface", "s"), DBusArgument("changed_properties", "a{sv}"),
                    DBusArgument("invalidated_properties", "as"),
                ])
        ])

    static let objectManagerDescription = DBusInterface(
        objectManager,
        methods: [method("GetManagedObjects", outputs: [DBusArgument("objects", "a{oa{sa{sv}}}")])],
        signals: [
            DBusSignalDescription(
                interfacesAdded, arguments: [DBusArgument("object", "o"), DBusArgument("interfaces", "a{sa{sv}}")]),
            DBusSignalDescription(
                interfacesRemoved, arguments: [DBusArgument("object", "o"), DBusArgument("interfaces", "as")]),
        ])

    private static func method(_ name: String, inputs: [DBusArgument] = [], outputs: [DBusArgument] = []) -> DBusMethod
    {
        DBusMethod(MemberName(unchecked: name), inputs: inputs, outputs: outputs) { _ in [] }
    }
}
