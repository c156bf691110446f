import DFUFormats
/// What happened, as the runner tells a ``DFUProtocolMachine``.
public enum DFUMachineEvent: Sendable, Hashable, CustomStringConvertible {
    /// The connection is ready: the first event of every machine.
    case start
    /// The last `.write`, `.lastWrite` or `.enableNotifications` completed.
    case written
    /// A notification (or indication) arrived from the endpoint the machine awaits.
    case notified([UInt8])
    /// No notification came within the duration of the last `.awaitNotification`.
    case timedOut
    /// The delay of the last `.wait` is over.
    case delayElapsed
    /// The last `.report` was delivered.
    case reported
    /// The link dropped (while writing, waiting, or enabling notifications).
    case disconnected
    /// The user interrupted the update: say goodbye to the device and end with `.fail(.aborted(step:))`.
    case cancelled

    /// A short trace line, e.g. "notified 60 03 01 …".
    public var description: String {
        switch self {
        case .start: "start"
        case .written: "written"
        case .notified(let bytes): "notified \(bytes.hexDescription)"
        case .timedOut: "timed out"
        case .delayElapsed: "delay elapsed"
        case .reported: "reported"
        case .disconnected: "disconnected"
        case .cancelled: "cancelled"
        }
    }
}
