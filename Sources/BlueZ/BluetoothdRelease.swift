/// A bluetoothd release as its adapters' Modalias names it: bluetoothd gives itself the Device ID of the Linux
/// Foundation's USB vendor 1D6B, product 0246 (BlueZ), version major << 8 | minor (`src/main.c` `init_defaults`, in
/// 5.55 and 5.66 alike), unless main.conf's `DeviceID` names another. The transport reads it to say what an old
/// bluetoothd lacks; the stand-in writes it, `dfu-sim peripheral` reads it.
public struct BluetoothdRelease: Comparable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    /// 5.60: the first release whose GATT server keeps the writes that arrive while it acquires an application's
    /// characteristic (AcquireWrite); before it they are lost (`src/gatt-database.c` `acquire_write_reply` sends only
    /// the write that asked; fixed by "gatt-database: No multiple calls to AcquireWrite", 6278a7104).
    public static let keepsWritesDuringAcquireWrite = BluetoothdRelease(major: 5, minor: 60)

    /// 5.42: the first release whose GATT client API (GattService1, GattCharacteristic1 for remote devices) is not
    /// experimental; before it bluetoothd exports a device's GATT objects only when it runs with `--experimental`
    /// (`src/gatt-client.c` at 5.41: "Don't attempt to create any objects if experimental is disabled").
    public static let gattClientAPI = BluetoothdRelease(major: 5, minor: 42)

    /// 5.48: the first release whose AcquireWrite and AcquireNotify are not experimental (doc/gatt-api.txt at 5.46 and
    /// 5.47 marks them `[experimental]`, 5.48 `[optional]`); before it `dfu` writes through WriteValue.
    public static let acquireAPI = BluetoothdRelease(major: 5, minor: 48)

    /// Whether this bluetoothd dies (SIGSEGV) when an advertisement matches the `UUIDs` of a discovery filter: 5.87,
    /// whose `is_filter_match` (`src/adapter.c`) passes `g_slist_find_custom`'s arguments to `queue_find` since
    /// 91c340d35 made the advertised services a queue, so it calls the UUID string as the match function; fixed by
    /// 82af2beaf after 5.87. Seen in the VM with Debian's 5.87-5 and with 5.87 built from its tag (Tests/BlueZVM/README.md).
    public var diesOnDiscoveryUUIDMatch: Bool { self == BluetoothdRelease(major: 5, minor: 87) }

    private static let prefix = "usb:v1D6Bp0246d"

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// From a Modalias such as `usb:v1D6Bp0246d0537` (5.55); nil for any other vendor or product.
    public init?(modalias: String) {
        let prefix = Self.prefix
        guard modalias.uppercased().hasPrefix(prefix.uppercased()), modalias.count == prefix.count + 4,
            let version = Int(modalias.dropFirst(prefix.count), radix: 16)
        else { return nil }
        self.init(major: version >> 8, minor: version & 0xFF)
    }

    /// Adapter1.Modalias as this release exports it: `usb:v1D6Bp0246d0542` for 5.66.
    public var modalias: String {
        let hex = String(major << 8 | minor, radix: 16, uppercase: true)
        return Self.prefix + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// "5.55".
    public var description: String { "\(major).\(minor)" }

    public static func < (left: BluetoothdRelease, right: BluetoothdRelease) -> Bool {
        (left.major, left.minor) < (right.major, right.minor)
    }
}
