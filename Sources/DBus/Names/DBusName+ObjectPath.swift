/// What only object paths have: the root, ancestry, and a child path.
extension DBusName where Kind == ObjectPathKind {
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
