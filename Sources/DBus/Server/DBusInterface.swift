/// An interface to export on an object: its methods, properties and signals.
public struct DBusInterface: Sendable {
    /// The interface name.
    public var name: InterfaceName
    /// Its methods.
    public var methods: [DBusMethod]
    /// Its properties, with their initial values.
    public var properties: [DBusProperty]
    /// The signals it declares.
    public var signals: [DBusSignalDescription]

    /// Describes an interface.
    public init(
        _ name: InterfaceName,
        methods: [DBusMethod] = [],
        properties: [DBusProperty] = [],
        signals: [DBusSignalDescription] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }
}
