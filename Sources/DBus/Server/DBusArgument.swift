/// A named, typed argument of an exported method or signal, as shown by introspection.
public struct DBusArgument: Sendable, Hashable {
    /// The argument's name (informative only).
    public var name: String
    /// The argument's type, one complete type.
    public var signature: DBusSignature

    /// Creates an argument description.
    public init(_ name: String, _ signature: DBusSignature) {
        self.name = name
        self.signature = signature
    }
}
