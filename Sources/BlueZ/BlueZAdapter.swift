import DBus

/// An `org.bluez.Adapter1` object as read from its properties.
public struct BlueZAdapter: Sendable, Hashable {
    /// The object path, e.g. `/org/bluez/hci0`.
    public var path: BlueZPath
    /// The adapter's address (`Address`), as printed.
    public var address: String?
    /// Whether the radio is on (`Powered`).
    public var isPowered: Bool
    /// Whether it is scanning (`Discovering`).
    public var isDiscovering: Bool
    /// `Modalias`: bluetoothd's Device ID, which names its release (``BluetoothdRelease``) unless configured otherwise.
    public var modalias: String?

    /// Makes an adapter description.
    public init(path: BlueZPath, address: String?, isPowered: Bool, isDiscovering: Bool, modalias: String? = nil) {
        self.path = path
        self.address = address
        self.isPowered = isPowered
        self.isDiscovering = isDiscovering
        self.modalias = modalias
    }

    /// The bluetoothd release its Modalias names (nil: none, or another Device ID).
    public var bluetoothdRelease: BluetoothdRelease? { modalias.flatMap(BluetoothdRelease.init(modalias:)) }

    /// Decodes the properties of `org.bluez.Adapter1`; absent flags read as false.
    init(path: BlueZPath, properties: [String: DBusValue]) {
        self.init(
            path: path, address: properties["Address"]?.stringValue,
            isPowered: properties["Powered"]?.boolValue ?? false,
            isDiscovering: properties["Discovering"]?.boolValue ?? false, modalias: properties["Modalias"]?.stringValue)
    }

    /// The name users type, the last path element: `hci0`.
    public var name: String { path.description.split(separator: "/").last.map(String.init) ?? path.description }
}
