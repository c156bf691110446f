/// Why the peripheral could not be set up or keep running.
public enum PeripheralError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command line was wrong; the text says how.
    case usage(String)
    /// The `--device` SPEC could not be read; the text says why (the stand-in's parser's message).
    case badDeviceSpec(String)
    /// The named adapter is not on bluetoothd's bus (e.g. `hci7`).
    case adapterNotFound(String)
    /// bluetoothd refused or failed a call; `what` names the call, `reason` is its error.
    case bluez(what: String, reason: String)
    /// A socket for AcquireWrite/AcquireNotify could not be made; the number is `errno`.
    case socket(Int32)
    /// The report file could not be written.
    case report(path: String, reason: String)

    /// One line for the user.
    public var description: String {
        switch self {
        case .usage(let text): text
        case .badDeviceSpec(let text): "bad --device: \(text)"
        case .adapterNotFound(let name): "no adapter \(name) on bluetoothd's bus"
        case .bluez(let what, let reason): "\(what) failed: \(reason)"
        case .socket(let code): "socketpair failed with errno \(code)"
        case .report(let path, let reason): "cannot write the report \(path): \(reason)"
        }
    }
}
