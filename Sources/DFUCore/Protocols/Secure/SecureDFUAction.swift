/// What the Secure DFU state machine asks the runner to do next.
public enum SecureDFUAction: Sendable, Hashable, CustomStringConvertible {
    /// Write the request to the control point (with response), then feed the next notification to `received(_:)`.
    case send(SecureDFURequest)
    /// Write each packet to the packet characteristic without response; then feed the next
    /// notification to `received(_:)` when `awaitReceipt`, else call `packetsWritten()`.
    case writePackets([[UInt8]], awaitReceipt: Bool)
    /// Keep waiting for the next control point notification (a late receipt was ignored).
    case awaitNotification
    /// Wait, then call `delayElapsed()`.
    case wait(Duration)
    /// The part is on the device: it validates, activates and drops the link.
    case awaitReset
    /// Stop with this error.
    case fail(DFUError)

    /// A short trace line.
    public var description: String {
        switch self {
        case .send(let request): "send \(request)"
        case .writePackets(let packets, let awaitReceipt):
            "write \(packets.count) packet(s), \(packets.reduce(0) { $0 + $1.count }) bytes\(awaitReceipt ? ", await receipt" : "")"
        case .awaitNotification: "await notification"
        case .wait(let duration): "wait \(duration)"
        case .awaitReset: "await reset"
        case .fail(let error): "fail: \(error)"
        }
    }
}
