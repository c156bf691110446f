import DBus

/// Where an org.bluez object lives (`/org/bluez/hci0/dev_C0_FF_EE_00_00_10`): an adapter, a
/// device, a GATT service or characteristic. Opaque to users of this layer, which only compare and
/// nest paths; the D-Bus object path stays inside.
public struct BlueZPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    let objectPath: ObjectPath

    init(_ objectPath: ObjectPath) {
        self.objectPath = objectPath
    }

    /// A path from its text; nil when it is not a valid object path.
    public init?(_ text: String) {
        guard let path = try? ObjectPath(text) else { return nil }
        objectPath = path
    }

    /// The path as bluetoothd writes it.
    public var description: String { objectPath.rawValue }

    /// Whether `other` lies below this path (a device below its adapter, a characteristic below its device).
    public func isAncestor(of other: BlueZPath) -> Bool { objectPath.isAncestor(of: other.objectPath) }

    public static func < (lhs: BlueZPath, rhs: BlueZPath) -> Bool { lhs.objectPath < rhs.objectPath }
}
