/// A signal an exported interface may emit, as shown by introspection.
public struct DBusSignalDescription: Sendable, Hashable {
    /// The signal name.
    public var name: MemberName
    /// Its arguments.
    public var arguments: [DBusArgument]

    /// Describes a signal.
    public init(_ name: MemberName, arguments: [DBusArgument] = []) {
        self.name = name
        self.arguments = arguments
    }
}
