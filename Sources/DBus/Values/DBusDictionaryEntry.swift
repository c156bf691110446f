/// One key–value pair of a D-Bus dictionary (a `{kv}` dict entry inside an array).
public struct DBusDictionaryEntry: Sendable, Hashable {
    /// The key; always of a basic type.
    public var key: DBusValue
    /// The value.
    public var value: DBusValue

    /// Creates an entry.
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
