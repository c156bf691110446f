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
    /// The error a `Properties.Get` of a property it does not have gets.
    public var unknownPropertyOnGet = UnknownPropertyError.unknownProperty

    /// How `Properties.Get` answers for a property an interface does not have.
    public enum UnknownPropertyError: Sendable {
        /// `org.freedesktop.DBus.Error.UnknownProperty` (the specification's name).
        case unknownProperty
        /// `org.freedesktop.DBus.Error.InvalidArgs "No such property 'NAME'"`, as services built on
        /// gdbus (bluetoothd's `gdbus/object.c` `properties_get`) answer.
        case invalidArgs
    }

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
