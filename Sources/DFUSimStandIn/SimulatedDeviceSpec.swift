public import DFUCore
public import DFUSimulator

/// One simulated device: what to simulate and how it starts (`dfu-sim`'s `--device KIND[,key=value…]`,
/// parsed by DFUSimCommand's `SimulatedDeviceSpec(parsing:)`).
///
/// Keys: `address`, `name`, `hw_version`, `sd_id` (installed SoftDevice FWID), `sd_id_after`
/// (the FWID a SoftDevice update installs), `app_version`, `bl_version`, `signature=required`
/// or `public_key=FILE` (init packets must carry a signature this PEM key verifies), `legacy_version=MAJOR.MINOR|none`,
/// `max_image` (bytes), `rssi` (dBm), `service_changed=yes` (the device indicates Service Changed,
/// so the host's GATT cache is refreshed after a jump at the same address), `connect_delay_ms`
/// (real time every Connect takes before the link is up; Disconnect meanwhile cancels it), `uuid.ROLE=UUID`
/// (the device uses a custom UUID for ROLE, a ``DFUServiceUUIDs/Role`` name such as `secure-service`;
/// UUIDs as `FE59`, `0000FE59` or 128-bit).
public struct SimulatedDeviceSpec: Sendable {
    /// The kind.
    public var kind: SimulatedDeviceKind
    /// What the simulator runs.
    public var profile: SimulatedDeviceProfile
    /// The flash at start.
    public var storage: SimulatedStorage
    /// The RSSI reported on discovery.
    public var rssi: Int16
    /// Whether the device indicates Service Changed when its GATT table changed at the same address.
    public var indicatesServiceChanged: Bool
    /// Real time every Connect to it takes before the link comes up (zero: at once).
    public var connectDelay: Duration
    /// The GATT UUIDs its firmware uses (Nordic's unless `uuid.ROLE=` keys replace some).
    public var uuids: DFUServiceUUIDs
    /// How an SMP device pairs and what its SMP characteristic needs (nRF5 kinds: open).
    public var pairing = DevicePairing()

    /// The address a device gets when the specification names none: `C0:FF:EE:00:00:N0` (N = index + 1).
    public static func defaultAddress(index: Int) -> DFUDeviceAddress? {
        let last = UInt8(truncatingIfNeeded: (index + 1) * 0x10)
        return DFUDeviceAddress(bytes: [0xC0, 0xFF, 0xEE, 0x00, UInt8(truncatingIfNeeded: (index + 1) >> 4), last])
    }

    public init(
        kind: SimulatedDeviceKind, profile: SimulatedDeviceProfile, storage: SimulatedStorage, rssi: Int16,
        indicatesServiceChanged: Bool, connectDelay: Duration, uuids: DFUServiceUUIDs, pairing: DevicePairing
    ) {
        self.kind = kind
        self.profile = profile
        self.storage = storage
        self.rssi = rssi
        self.indicatesServiceChanged = indicatesServiceChanged
        self.connectDelay = connectDelay
        self.uuids = uuids
        self.pairing = pairing
    }
}
