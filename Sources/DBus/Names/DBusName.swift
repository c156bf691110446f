/// A validated D-Bus name of one kind (`Kind`: a bus, interface, member or error name, or an object path).
///
/// Checked with libdbus's validator of that kind when created, so it can always be passed to libdbus safely. The kinds
/// are ``BusName``, ``InterfaceName``, ``MemberName``, ``ErrorName`` and ``ObjectPath``.
public struct DBusName<Kind: DBusNameKind>: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The validated name, for example `org.bluez.Adapter1`.
    public let rawValue: String

    /// Validates `string` as a name of this kind.
    public init(_ string: String) throws(DBusError) {
        try Kind.validate(string)
        rawValue = string
    }

    /// Validates `rawValue` as a name of this kind, or returns `nil` when it is not one.
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
