/// What the Legacy DFU state machine asks the runner to do next.
public enum LegacyDFUAction: Sendable, Hashable {
    /// Write to the control point (with response). Then feed the next notification to `received(_:)`
    /// when the request expects a response, else call `requestWritten()`.
    case send(LegacyDFURequest)
    /// Write each packet (always ≤ 20 bytes) without response; then feed the next notification when
    /// `awaitReceipt`, else call `packetsWritten()`.
    case writePackets([[UInt8]], awaitReceipt: Bool)
    /// Wait, then call `delayElapsed()`.
    case wait(Duration)
    /// Send Reset (`06`), reconnect, and run the part again with a new machine (`restarted: true`).
    case resetAndRestart
    /// Activate was sent: wait for the device to reset.
    case awaitReset
    /// Stop with this error.
    case fail(DFUError)
}
