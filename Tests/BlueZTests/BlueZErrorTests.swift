@testable import BlueZ
import DBus
import Testing

@Suite struct BlueZErrorTests {
    @Test(arguments: [
        ("org.freedesktop.DBus.Error.ServiceUnknown", "", BlueZError.notRunning),
        ("org.freedesktop.DBus.Error.NameHasNoOwner", "", .notRunning),
        ("org.freedesktop.DBus.Error.AccessDenied", "denied", .accessDenied("denied")),
        ("org.freedesktop.DBus.Error.NoServer", "gone", .busUnavailable("gone")),
        ("org.freedesktop.DBus.Error.NoReply", "late", .timedOut("late")),
        ("org.freedesktop.DBus.Error.UnknownObject", "x", .doesNotExist("x")),
        ("org.bluez.Error.InProgress", "busy", .inProgress("busy")),
        ("org.bluez.Error.AlreadyConnected", "", .inProgress("")),
        ("org.bluez.Error.NotReady", "off", .notReady("off")),
        ("org.bluez.Error.NotPermitted", "Write acquired", .notPermitted("Write acquired")),
        ("org.bluez.Error.NotAuthorized", "", .notAuthorized("")),
        ("org.bluez.Error.NotSupported", "", .notSupported("")),
        ("org.bluez.Error.DoesNotExist", "", .doesNotExist("")),
        ("org.bluez.Error.AuthenticationFailed", "", .pairingFailed("")),
        ("org.bluez.Error.Failed", "Operation failed with ATT error: 0xfd", .failed(message: "Operation failed with ATT error: 0xfd", attError: 0xFD)),
        ("org.bluez.Error.Failed", "le-connection-abort-by-local", .failed(message: "le-connection-abort-by-local", attError: nil)),
        // bluetoothd 5.66's LE Connect while a connection attempt to the device is under way (`dev_connect`:
        // device_connect_le's -EALREADY, answered btd_error_failed(strerror(EALREADY))); seen in the VM suite
        // after a reset, when the old link was still being torn down.
        ("org.bluez.Error.Failed", "Operation already in progress", .inProgress("Operation already in progress")),
        ("org.example.Error.Odd", "?", .other(name: "org.example.Error.Odd", message: "?")),
    ])
    func mapsErrorNames(name: String, message: String, expected: BlueZError) {
        #expect(BlueZError(DBusError(name: name, message: message)) == expected)
    }

    /// bluetoothd 5.66 `create_gatt_dbus_error`: ATT 0x05, 0x0F and 0x0C become NotPermitted "Not paired"; other
    /// ATT errors keep their code in a Failed message.
    @Test(arguments: [
        ("org.bluez.Error.NotPermitted", "Not paired", true),
        ("org.bluez.Error.NotPermitted", "Notify acquired", false),
        ("org.bluez.Error.NotPermitted", "Write not permitted", false),
        ("org.bluez.Error.Failed", "Operation failed with ATT error: 0x05", true),
        ("org.bluez.Error.Failed", "Operation failed with ATT error: 0x0f", true),
        ("org.bluez.Error.Failed", "Operation failed with ATT error: 0xfd", false),
        ("org.bluez.Error.AuthenticationFailed", "Authentication Failed", false),
    ])
    func aRefusalForWantOfEncryptionNeedsPairing(name: String, message: String, needsPairing: Bool) {
        #expect(BlueZError(DBusError(name: name, message: message)).needsPairing == needsPairing)
    }

    @Test func messagesSayWhatToDo() {
        #expect(BlueZError.notRunning.description.contains("BlueZ (bluetoothd) is not running"))
        #expect(BlueZError.accessDenied("x").description.contains("bluetooth group"))
        #expect(BlueZError.adapterPoweredOff("hci0").description.contains("powered off"))
        #expect(BlueZError.adapterNotFound(name: "hci3", available: ["hci0"]).description == "there is no Bluetooth adapter hci3 (available: hci0)")
    }

    @Test(arguments: [
        (BlueZError.notRunning, true), (.noAdapter, true), (.adapterPoweredOff("hci0"), true), (.busUnavailable(""), true),
        (.accessDenied(""), true), (.inProgress(""), false), (.timedOut(""), false),
    ])
    func stackUnavailableErrorsAreFlagged(error: BlueZError, unavailable: Bool) {
        #expect(error.isStackUnavailable == unavailable)
    }
}
