internal import CDBus

/// A D-Bus method or signal name, such as `StartDiscovery`.
///
/// Checked with libdbus's `dbus_validate_member` when created, so it can always be passed to libdbus safely.
public struct MemberName: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The validated name, for example `StartDiscovery`.
    public let rawValue: String

    /// Validates `string` as a member name.
    public init(_ string: String) throws(DBusError) {
        try LibDBus.validate(string, what: "a member name") { dbus_validate_member($0, $1) }
        rawValue = string
    }

    /// Validates `rawValue` as a member name, or returns `nil` when it is not one.
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
