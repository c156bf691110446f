/// The bluetoothd release serving an adapter, from Adapter1.Modalias: bluetoothd gives itself the Device ID of the
/// Linux Foundation's USB vendor 1D6B, product 0246 (BlueZ), version major << 8 | minor (`src/main.c`
/// `init_defaults`, in 5.55 and 5.66 alike), unless main.conf's `DeviceID` names another.
struct BluetoothdRelease: Comparable, Sendable {
    let major: Int
    let minor: Int

    /// 5.60: the first release whose GATT server keeps the writes that arrive while it acquires an application's
    /// characteristic (AcquireWrite); before it they are lost (`src/gatt-database.c` `acquire_write_reply` sends only
    /// the write that asked; fixed by "gatt-database: No multiple calls to AcquireWrite", 6278a7104).
    static let keepsWritesDuringAcquireWrite = BluetoothdRelease(major: 5, minor: 60)

    init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// From a Modalias such as `usb:v1D6Bp0246d0537` (5.55); nil for any other vendor or product.
    init?(modalias: String) {
        let prefix = "usb:v1D6Bp0246d"
        guard modalias.uppercased().hasPrefix(prefix.uppercased()),
            let version = Int(modalias.dropFirst(prefix.count), radix: 16), modalias.count == prefix.count + 4
        else { return nil }
        self.init(major: version >> 8, minor: version & 0xFF)
    }

    static func < (left: BluetoothdRelease, right: BluetoothdRelease) -> Bool {
        (left.major, left.minor) < (right.major, right.minor)
    }
}
