/// How to find and connect a device.
public struct DFUConnectParameters: Sendable, Hashable {
    /// Which device.
    public var selector: DFUDeviceSelector
    /// How long to scan for a matching advertisement.
    public var scanTimeout: Duration
    /// How long connecting and service discovery may take.
    public var connectTimeout: Duration
    /// The UUID table used to map GATT characteristics to endpoints.
    public var uuids: DFUServiceUUIDs
    /// Forget any cached GATT database for this address and discover again
    /// (BlueZ: remove the device object first). Needed when app and bootloader share an address.
    public var discardCachedServices: Bool

    /// Makes parameters.
    public init(selector: DFUDeviceSelector, scanTimeout: Duration, connectTimeout: Duration,
                uuids: DFUServiceUUIDs, discardCachedServices: Bool = false) {
        self.selector = selector
        self.scanTimeout = scanTimeout
        self.connectTimeout = connectTimeout
        self.uuids = uuids
        self.discardCachedServices = discardCachedServices
    }
}
