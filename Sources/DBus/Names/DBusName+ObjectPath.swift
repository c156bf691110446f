internal import CDBus

/// A D-Bus object path, such as `/org/bluez/hci0`.
///
/// Checked with libdbus's `dbus_validate_path` when created, so it can always be passed to libdbus safely.
public struct ObjectPath: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The validated name, for example `/org/bluez/hci0`.
    public let rawValue: String

    /// Validates `string` as an object path.
    public init(_ string: String) throws(DBusError) {
        try LibDBus.validate(string, what: "an object path") { dbus_validate_path($0, $1) }
        rawValue = string
    }

    /// Validates `rawValue` as an object path, or returns `nil` when it is not one.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// Wraps a string already known to be valid (a constant of this module, or a value read from libdbus).
    init(unchecked string: String) {
        rawValue = string
    }

    /// The name itself.
    public var description: String { rawValue }

    /// Orders names by their text.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension ObjectPath {
    /// The root path `/`.
    public static let root = ObjectPath(unchecked: "/")

    /// Whether `other` lies strictly below this path (`/a/b` is below `/a` and below `/`).
    public func isAncestor(of other: ObjectPath) -> Bool {
        if rawValue == "/" { return other.rawValue != "/" }
        return other.rawValue.hasPrefix(rawValue + "/")
    }

    /// The path of a child object: `/org/bluez` appending `hci0` gives `/org/bluez/hci0`.
    public func appending(_ element: String) throws(DBusError) -> ObjectPath {
        try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }
}
