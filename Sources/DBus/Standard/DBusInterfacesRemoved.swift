/// A decoded `org.freedesktop.DBus.ObjectManager.InterfacesRemoved` signal.
public struct DBusInterfacesRemoved: Sendable, Equatable {
    /// The object that lost interfaces.
    public var object: ObjectPath
    /// The names of the removed interfaces.
    public var interfaces: [String]

    /// Decodes the signal; `nil` when `message` is not a well-formed `InterfacesRemoved`.
    public init?(_ message: DBusMessage) {
        guard message.type == .signal, message.interface == StandardInterfaces.objectManager,
            message.member == StandardInterfaces.interfacesRemoved, message.signature == "oas",
            let object = message.arguments[0].objectPathValue, let interfaces = message.arguments[1].stringArrayValue
        else { return nil }
        self.object = object
        self.interfaces = interfaces
    }
}
