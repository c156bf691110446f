/// One device heard while scanning.
public struct Advertisement: Sendable, Hashable {
    /// Its address.
    public var address: DFUDeviceAddress
    /// Its advertised name, when it has one.
    public var name: String?
    /// Received signal strength in dBm, when known.
    public var rssi: Int?
    /// The service UUIDs it advertises (canonical 128-bit upper-case form).
    public var serviceUUIDs: [String]

    /// Makes an advertisement.
    public init(address: DFUDeviceAddress, name: String?, rssi: Int?, serviceUUIDs: [String]) {
        self.address = address
        self.name = name
        self.rssi = rssi
        self.serviceUUIDs = serviceUUIDs
    }
}
