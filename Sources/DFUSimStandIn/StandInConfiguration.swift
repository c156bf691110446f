public import DFUCore

/// Everything a stand-in serves: the adapter, the simulated devices, the link and the faults.
public struct StandInConfiguration: Sendable {
    /// The GATT cache policy in force: `host.cache`, or `no` under the `no-stale-cache` fault.
    var cache: StandInHost.Cache { faults.cachesServices ? host.cache : .no }

    /// The simulated devices, in `--device` order.
    public var devices: [SimulatedDeviceSpec]
    /// The link figures and host timings.
    public var link: StandInLink
    /// Faults applied to every device.
    public var faults: StandInFaults
    /// The bluetoothd it plays: version, GATT cache policy, TemporaryTimeout.
    public var host = StandInHost()
    /// The adapter's name (`hci0`).
    public var adapterName = "hci0"
    /// The adapter's address.
    public var adapterAddress = DFUDeviceAddress(bytes: [0x00, 0xAA, 0x01, 0x00, 0x00, 0x00])
    /// The adapter's friendly name (Name/Alias).
    public var adapterAlias = "dfu-sim"
    /// Whether the adapter starts powered.
    public var powered = true
    /// Whether there is an adapter at all (false: bluetoothd without a controller).
    public var hasAdapter = true
    /// Further controllers after the first (`hci1`, …) and whether each is powered. They are listed as bluetoothd
    /// lists a controller (Adapter1 with its name, address and power state), but the simulated devices are heard
    /// through the first adapter only: the others' methods answer NotSupported.
    public var otherAdapters: [(name: String, powered: Bool)] = []

    /// Makes a configuration.
    public init(
        devices: [SimulatedDeviceSpec] = [], link: StandInLink = StandInLink(), faults: StandInFaults = StandInFaults()
    ) {
        self.devices = devices
        self.link = link
        self.faults = faults
    }
}
