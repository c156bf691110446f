import DFUFormats
/// What a ``DFUProtocolMachine`` asks the runner to do next.
public enum DFUMachineAction: Sendable, Hashable, CustomStringConvertible {
    /// Enable notifications or indications on the endpoint; answered with `.written`.
    case enableNotifications(on: DFUEndpoint)
    /// Write each frame, in order, to the endpoint with the given write type; answered with `.written`
    /// once all went out. Frames that are firmware bytes for a flash are `paced`: the runner holds each
    /// back as the flash pacing writer says (see ``FlashPacedWriter``); other frames go out at once.
    case write([[UInt8]], to: DFUEndpoint, type: DFUWriteType, paced: Bool = false)
    /// A last write with response to a device being given up on or reset (an Abort or Reset request):
    /// the link may already be gone, so its failure is no error. Answered with `.written` either way.
    case lastWrite([UInt8], to: DFUEndpoint)
    /// Wait for the next notification from the endpoint (others are skipped) for at most the duration;
    /// answered with `.notified(bytes)` or `.timedOut`.
    case awaitNotification(from: DFUEndpoint, within: Duration)
    /// Wait this long; answered with `.delayElapsed`.
    case wait(Duration)
    /// Tell the runner something (progress, a flash hint, a fallback); answered with `.reported`.
    case report(DFUMachineReport)
    /// The machine is done with this connection.
    case finish(DFUMachineOutcome)
    /// Stop the update with this error (the link stays up; the runner decides whether to close it).
    case fail(DFUError)

    /// A short trace line.
    public var description: String {
        switch self {
        case .enableNotifications(let endpoint): "enable notifications on \(endpoint)"
        case .write(let frames, let endpoint, let type, let paced):
            "write \(frames.count) frame(s), \(frames.reduce(0) { $0 + $1.count }) bytes to \(endpoint)"
                + (type == .withResponse ? " with response" : "") + (paced ? ", paced" : "")
        case .lastWrite(let frame, let endpoint): "last write \(frame.hexDescription) to \(endpoint)"
        case .awaitNotification(let endpoint, let timeout): "await notification from \(endpoint) within \(timeout)"
        case .wait(let duration): "wait \(duration)"
        case .report(let report): "report \(report)"
        case .finish(let outcome): "finish: \(outcome)"
        case .fail(let error): "fail: \(error)"
        }
    }
}
