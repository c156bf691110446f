import BlueZ

/// `--bluetoothd KEY=VALUE[,…]`: the bluetoothd the stand-in plays, as its `main.conf` and version make it.
///
/// Keys: `version` (`5.66`, the default, `5.55`, `5.80` or `5.87`: what changed that a DFU client can notice),
/// `cache` (`always`, the default, `yes` or `no`: main.conf `[GATT] Cache`), `temporary_timeout_s`
/// (main.conf `[General] TemporaryTimeout`, default 30; 0 keeps devices for ever).
public struct StandInHost: Sendable, Hashable {
    /// A bluetoothd release whose D-Bus API the stand-in exports.
    public enum Version: String, Sendable, Hashable, CaseIterable {
        /// Debian 11's bluetoothd: as 5.66 except that GATT characteristics have no `MTU` property (`src/gatt-client.c`
        /// `characteristic_properties`, added in 5.62) and devices no `Bonded` (`src/device.c`, added in 5.65), both
        /// seen in the VM against the real 5.55. Only those differences are modelled.
        case v5_55 = "5.55"
        /// Debian 12's bluetoothd: GATT objects without `Handle`, AcquireNotify only on `notify`.
        case v5_66 = "5.66"
        /// GATT objects export `Handle` (from 5.70) and AcquireNotify also takes indications (from 5.80).
        case v5_80 = "5.80"
        /// Debian unstable's bluetoothd: as 5.80, and it dies (SIGSEGV: here it leaves the bus for good) when an
        /// advertisement matches the `UUIDs` of a discovery filter (`src/adapter.c` `is_filter_match` since 91c340d35,
        /// fixed by 82af2beaf after 5.87), as the real 5.87 did in the VM. Only that difference from 5.80 is modelled.
        case v5_87 = "5.87"

        /// The release, as Adapter1.Modalias names it.
        var release: BluetoothdRelease {
            let parts = rawValue.split(separator: ".").compactMap { Int($0) }
            return BluetoothdRelease(major: parts.first ?? 0, minor: parts.last ?? 0)
        }

        /// Whether `GattCharacteristic1`/`GattDescriptor1` export `Handle` (`src/gatt-client.c`, 5.70+).
        var exportsHandles: Bool { self == .v5_80 || self == .v5_87 }
        /// Whether AcquireNotify accepts an indicate-only characteristic
        /// (`characteristic_acquire_notify`, 5.80+; 5.66 answers NotSupported).
        var acquiresIndications: Bool { self == .v5_80 || self == .v5_87 }
        /// Whether an advertisement matching a discovery filter's UUIDs kills it (5.87).
        var diesOnDiscoveryUUIDMatch: Bool { release.diesOnDiscoveryUUIDMatch }
        /// Whether `GattCharacteristic1` exports `MTU` (`src/gatt-client.c`, 5.62+).
        var exportsMTU: Bool { self != .v5_55 }
        /// Whether `Device1` exports `Bonded` (`src/device.c`, 5.65+: commit 0e2e52d0c).
        var exportsBonded: Bool { self != .v5_55 }
    }

    /// main.conf `[GATT] Cache`: when a device's GATT database outlives its link.
    public enum Cache: String, Sendable, Hashable, CaseIterable {
        /// Kept for every device (the default).
        case always
        /// Kept for paired devices only.
        case yes
        /// Dropped on every disconnect.
        case no
    }

    /// The version claimed and exported.
    public var version = Version.v5_66
    /// The GATT cache policy.
    public var cache = Cache.always
    /// How long an unpaired device that is neither connected nor heard stays (`TemporaryTimeout`).
    public var temporaryTimeout: Duration = .seconds(30)

    /// bluetoothd 5.66 with Debian's main.conf (every setting at its default).
    public init() {}

}

extension StandInHost.Cache {
    /// Whether a device's GATT database survives a disconnect (`src/device.c` `gatt_cache_is_enabled`).
    func keeps(paired: Bool) -> Bool {
        switch self {
        case .always: true
        case .yes: paired
        case .no: false
        }
    }
}
