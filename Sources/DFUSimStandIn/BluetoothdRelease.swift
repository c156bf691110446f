/// A bluetoothd release as its adapters' Modalias names it: bluetoothd gives itself the Device ID of the Linux
/// Foundation's USB vendor 1D6B, product 0246 (BlueZ), version major << 8 | minor (`src/main.c` `init_defaults`, in
/// 5.55 and 5.66 alike), unless main.conf's `DeviceID` names another. The stand-in writes it, `dfu-sim peripheral`
/// reads it.
public struct BluetoothdRelease: Comparable, Sendable {
    public let major: Int
    public let minor: Int

    /// 5.60: the first release whose GATT server keeps the writes that arrive while it acquires an application's
    /// characteristic (AcquireWrite); before it they are lost (`src/gatt-database.c` `acquire_write_reply` sends only
    /// the write that asked; fixed by "gatt-database: No multiple calls to AcquireWrite", 6278a7104).
    public static let keepsWritesDuringAcquireWrite = BluetoothdRelease(major: 5, minor: 60)

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

    public static func < (left: BluetoothdRelease, right: BluetoothdRelease) -> Bool {
        (left.major, left.minor) < (right.major, right.minor)
    }
}
