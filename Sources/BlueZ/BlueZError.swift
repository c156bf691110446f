import DBus

/// A failure talking to BlueZ, in words a user can act on; mapped from D-Bus and `org.bluez.Error.*` errors.
public enum BlueZError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system bus cannot be reached (no daemon at the address, bad `DBUS_SYSTEM_BUS_ADDRESS`).
    case busUnavailable(String)
    /// Nobody owns `org.bluez` on the bus: bluetoothd is not running.
    case notRunning
    /// The bus policy refused a call to BlueZ.
    case accessDenied(String)
    /// BlueZ has no Bluetooth adapter at all.
    case noAdapter
    /// The adapter named by the user does not exist; the known adapters are listed.
    case adapterNotFound(name: String, available: [String])
    /// The adapter exists but is powered off.
    case adapterPoweredOff(String)
    /// `org.bluez.Error.InProgress` (also `AlreadyExists`, `AlreadyConnected`): the same operation is
    /// already running or done. Also bluetoothd's `Failed "Operation already in progress"`: its LE Connect
    /// (`device.c` `dev_connect`) answers `device_connect_le`'s -EALREADY (a connection attempt to the device
    /// is already under way: another client's, bluetoothd's own reconnection, or an earlier Connect) with
    /// `btd_error_failed` and `strerror(EALREADY)`.
    case inProgress(String)
    /// `org.bluez.Error.NotReady`: the adapter is not ready (usually powered off).
    case notReady(String)
    /// `org.bluez.Error.NotPermitted`: the operation is not allowed now (e.g. the write is acquired).
    case notPermitted(String)
    /// `org.bluez.Error.NotAuthorized`: the peer refused for lack of authorisation.
    case notAuthorized(String)
    /// `org.bluez.Error.NotSupported`: the object cannot do this (e.g. AcquireNotify on an indication).
    case notSupported(String)
    /// `org.bluez.Error.DoesNotExist` or an unknown object: the device or adapter is gone.
    case doesNotExist(String)
    /// `org.bluez.Error.AuthenticationFailed` and the other pairing failures.
    case pairingFailed(String)
    /// `org.bluez.Error.Failed`, with the ATT error code when BlueZ names one.
    case failed(message: String, attError: UInt8?)
    /// No reply within the time allowed.
    case timedOut(String)
    /// The connection to the bus was lost, or BlueZ left the bus, during the call.
    case disconnected(String)
    /// BlueZ answered with something this client does not understand.
    case unexpectedReply(String)
    /// Any other D-Bus error, name and message kept.
    case other(name: String, message: String)

    /// Classifies a D-Bus error (remote or local) from a call to BlueZ.
    init(_ error: DBusError) {
        let message = error.message
        switch error.name {
        case "org.bluez.Error.InProgress", "org.bluez.Error.AlreadyExists", "org.bluez.Error.AlreadyConnected":
            self = .inProgress(message)
        case "org.bluez.Error.NotReady": self = .notReady(message)
        case "org.bluez.Error.NotPermitted": self = .notPermitted(message)
        case "org.bluez.Error.NotAuthorized": self = .notAuthorized(message)
        case "org.bluez.Error.NotSupported", "org.bluez.Error.NotAvailable": self = .notSupported(message)
        case "org.bluez.Error.DoesNotExist", "org.bluez.Error.NotConnected": self = .doesNotExist(message)
        case "org.bluez.Error.AuthenticationFailed", "org.bluez.Error.AuthenticationCanceled",
            "org.bluez.Error.AuthenticationRejected", "org.bluez.Error.AuthenticationTimeout",
            "org.bluez.Error.ConnectionAttemptFailed":
            self = .pairingFailed(message)
        case "org.bluez.Error.Failed" where message == Self.alreadyInProgress: self = .inProgress(message)
        case "org.bluez.Error.Failed": self = .failed(message: message, attError: Self.attErrorCode(in: message))
        default:
            switch error.code {
            case .noServer: self = .busUnavailable(message)
            case .noSuchName: self = .notRunning
            case .accessDenied: self = .accessDenied(message)
            case .unknownObject, .unknownInterface: self = .doesNotExist(message)
            case .timedOut: self = .timedOut(message)
            case .disconnected: self = .disconnected(message)
            default: self = .other(name: error.name, message: message)
            }
        }
    }

    /// `strerror(EALREADY)`, the message of bluetoothd's `Failed` for an operation already under way.
    static let alreadyInProgress = "Operation already in progress"

    /// Whether this failure means the Bluetooth stack cannot be used at all (the CLI exits 69).
    public var isStackUnavailable: Bool {
        switch self {
        case .busUnavailable, .notRunning, .accessDenied, .noAdapter, .adapterNotFound, .adapterPoweredOff: true
        default: false
        }
    }

    /// Whether the device refused for want of an encrypted link: bluetoothd 5.66 answers ATT errors 0x05
    /// (Insufficient Authentication), 0x0F (Insufficient Encryption) and 0x0C (Insufficient Encryption Key
    /// Size) with `NotPermitted "Not paired"` (`src/gatt-client.c` `create_gatt_dbus_error`), after its own
    /// attempt to raise the link's security failed (`src/shared/att.c` `change_security`).
    public var needsPairing: Bool {
        switch self {
        case .notPermitted(let detail): detail.lowercased().contains("not paired")
        case .failed(_, let code?): code == 0x05 || code == 0x0F || code == 0x0C
        default: false
        }
    }

    /// The ATT error code in a BlueZ message such as "Operation failed with ATT error: 0x81".
    static func attErrorCode(in message: String) -> UInt8? {
        guard let range = message.firstRange(of: "ATT error: 0x") else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isHexDigit }
        return UInt8(digits.prefix(2), radix: 16)
    }

    /// One sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case .busUnavailable(let detail):
            "the D-Bus system bus is not reachable (\(detail)); is dbus running, and is DBUS_SYSTEM_BUS_ADDRESS right?"
        case .notRunning:
            "BlueZ (bluetoothd) is not running: org.bluez is not on the system bus; start the bluetooth service"
        case .accessDenied(let detail):
            "permission denied by the D-Bus policy for org.bluez (\(detail)); "
                + "add the user to the bluetooth group or allow it in /etc/dbus-1/system.d/bluetooth.conf"
        case .noAdapter: "BlueZ has no Bluetooth adapter; plug one in or check that the controller is not blocked (rfkill)"
        case .adapterNotFound(let name, let available):
            "there is no Bluetooth adapter \(name)"
                + (available.isEmpty ? "" : " (available: \(available.joined(separator: ", ")))")
        case .adapterPoweredOff(let name):
            "the Bluetooth adapter \(name) is powered off; power it on (bluetoothctl power on) and check rfkill"
        case .inProgress(let detail): "BlueZ is already busy with this operation" + Self.suffix(detail)
        case .notReady(let detail): "the Bluetooth adapter is not ready (powered off?)" + Self.suffix(detail)
        case .notPermitted(let detail): "BlueZ does not permit this operation now" + Self.suffix(detail)
        case .notAuthorized(let detail): "the device refused: not authorised" + Self.suffix(detail)
        case .notSupported(let detail): "not supported by BlueZ or the device" + Self.suffix(detail)
        case .doesNotExist(let detail): "the device or adapter no longer exists in BlueZ" + Self.suffix(detail)
        case .pairingFailed(let detail): "pairing with the device failed" + Self.suffix(detail)
        case .failed(let message, _): "BlueZ reported a failure" + Self.suffix(message)
        case .timedOut(let detail): "BlueZ did not answer in time" + Self.suffix(detail)
        case .disconnected(let detail): "lost the connection to BlueZ" + Self.suffix(detail)
        case .unexpectedReply(let detail): "unexpected reply from BlueZ: \(detail)"
        case .other(let name, let message): message.isEmpty ? name : "\(name): \(message)"
        }
    }

    private static func suffix(_ detail: String) -> String { detail.isEmpty ? "" : " (\(detail))" }
}
