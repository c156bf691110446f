/// What a connection found: the device, its DFU endpoints and its write size.
public struct DFUPeer: Sendable, Hashable {
    /// The connected address.
    public var address: DFUDeviceAddress
    /// The advertised name, when there was one.
    public var name: String?
    /// The DFU endpoints present in the discovered GATT database.
    public var endpoints: Set<DFUEndpoint>
    /// Primary services other than GAP and GATT (Legacy guesses app vs bootloader from it).
    public var serviceCount: Int
    /// Longest value for a write without response: ATT MTU − 3.
    public var maximumWriteLength: Int
    /// Whether the link is bonded (buttonless with bonds requires it).
    public var isBonded: Bool

    /// Makes a peer description.
    public init(address: DFUDeviceAddress, name: String?, endpoints: Set<DFUEndpoint>, serviceCount: Int,
                maximumWriteLength: Int, isBonded: Bool) {
        self.address = address
        self.name = name
        self.endpoints = endpoints
        self.serviceCount = serviceCount
        self.maximumWriteLength = maximumWriteLength
        self.isBonded = isBonded
    }
}
