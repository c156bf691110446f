/// What a ``DFUProtocolMachine`` tells the runner besides its I/O: progress, hints for the flash pacing
/// writer, and fallbacks that end up in the ``DFUUpdateReport``.
public enum DFUMachineReport: Sendable, Hashable, CustomStringConvertible {
    /// The part is in this progress state with `bytes` of it sent (`.uploading`), about to be validated
    /// (`.validating`), about to drop the link (`.disconnecting`) or abandoned (`.aborted`).
    case progress(DFUState, bytes: Int)
    /// Firmware starts to flow on this connection from `offset` (what the device already holds): the speed
    /// is measured from here. Repeated reports on one connection are ignored.
    case transferStarting(offset: Int)
    /// What the device's flash is doing, for the flash pacing writer.
    case flash(FlashPacingEvent)
    /// The machine lowered its PRN interval (to 1 by default) after losses.
    case fellBackToPRN1
    /// How the SMP upload frames its requests over the writes, and why.
    case smpFraming(SMPFraming)
    /// SMP: the image of the plan being uploaded (its index in the plan) and how many of its bytes the device holds.
    case smpPart(index: Int, bytes: Int)
    /// SMP: where each image of the plan stands, whenever that changes.
    case smpImages([SMPImageReport])
    /// Secure, after an interrupt: whether the bootloader accepted Abort (from SDK 15 on it resets and drops the object
    /// it was receiving; false also when no answer came in time).
    case abortAnswered(accepted: Bool)

    /// A short trace line.
    public var description: String {
        switch self {
        case .progress(let state, let bytes): "\(state.rawValue) at \(bytes) bytes"
        case .transferStarting(let offset): "transfer starting at \(offset)"
        case .flash(let event): "flash \(event)"
        case .fellBackToPRN1: "fell back to PRN 1"
        case .smpFraming(let framing): framing.description
        case .smpPart(let index, let bytes): "image at index \(index) holds \(bytes) bytes"
        case .smpImages(let images): "images " + images.map { "\($0.image) \($0.state.rawValue)" }.joined(separator: ", ")
        case .abortAnswered(let accepted): accepted ? "Abort accepted" : "Abort not accepted"
        }
    }
}
