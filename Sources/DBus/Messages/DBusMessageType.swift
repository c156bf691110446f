/// The four kinds of D-Bus message.
public enum DBusMessageType: Int32, Sendable {
    /// A method call (`DBUS_MESSAGE_TYPE_METHOD_CALL`).
    case methodCall = 1
    /// A successful reply (`DBUS_MESSAGE_TYPE_METHOD_RETURN`).
    case methodReturn = 2
    /// An error reply (`DBUS_MESSAGE_TYPE_ERROR`).
    case error = 3
    /// A signal (`DBUS_MESSAGE_TYPE_SIGNAL`).
    case signal = 4
}
