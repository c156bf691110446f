internal import CDBus

/// One kind of D-Bus name, with libdbus's validator for it (``DBusName``'s `Kind`).
public protocol DBusNameKind: Sendable {
    /// Throws ``DBusError/invalidArguments(_:)`` naming what is wrong with `string` as a name of this kind.
    static func validate(_ string: String) throws(DBusError)
}

/// A bus name: a well-known name such as `org.bluez` or a unique name such as `:1.42` (`dbus_validate_bus_name`).
public enum BusNameKind: DBusNameKind {
    public static func validate(_ string: String) throws(DBusError) {
        try LibDBus.validate(string, what: "a bus name") { dbus_validate_bus_name($0, $1) }
    }
}

/// An interface name, such as `org.bluez.Adapter1` (`dbus_validate_interface`).
public enum InterfaceNameKind: DBusNameKind {
    public static func validate(_ string: String) throws(DBusError) {
        try LibDBus.validate(string, what: "an interface name") { dbus_validate_interface($0, $1) }
    }
}

/// A method or signal name, such as `StartDiscovery` (`dbus_validate_member`).
public enum MemberNameKind: DBusNameKind {
    public static func validate(_ string: String) throws(DBusError) {
        try LibDBus.validate(string, what: "a member name") { dbus_validate_member($0, $1) }
    }
}

/// An error name, such as `org.bluez.Error.Failed` (`dbus_validate_error_name`).
public enum ErrorNameKind: DBusNameKind {
    public static func validate(_ string: String) throws(DBusError) {
        try LibDBus.validate(string, what: "an error name") { dbus_validate_error_name($0, $1) }
    }
}

/// An object path, such as `/org/bluez/hci0` (`dbus_validate_path`).
public enum ObjectPathKind: DBusNameKind {
    public static func validate(_ string: String) throws(DBusError) {
        try LibDBus.validate(string, what: "an object path") { dbus_validate_path($0, $1) }
    }
}

/// A D-Bus bus name: a well-known name such as `org.bluez` or a unique name such as `:1.42`.
public typealias BusName = DBusName<BusNameKind>
/// A D-Bus interface name, such as `org.bluez.Adapter1`.
public typealias InterfaceName = DBusName<InterfaceNameKind>
/// A D-Bus method or signal name, such as `StartDiscovery`.
public typealias MemberName = DBusName<MemberNameKind>
/// A D-Bus error name, such as `org.bluez.Error.Failed`.
public typealias ErrorName = DBusName<ErrorNameKind>
/// A D-Bus object path, such as `/org/bluez/hci0`.
public typealias ObjectPath = DBusName<ObjectPathKind>
