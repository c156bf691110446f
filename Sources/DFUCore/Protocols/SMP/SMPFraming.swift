/// How an SMP upload frames its requests over the link's writes, and why (shown by `dfu upload -v`).
///
/// Zephyr's SMP server joins a frame written in several pieces only when built with
/// `CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`; by default (`smp_bt_chr_write`, its `#else` branch, in
/// `subsys/mgmt/mcumgr/transport/src/smp_bt.c`) each write is handed to SMP as one whole packet, and a frame split
/// over two writes is answered MGMT_ERR_ECORRUPT (`smp_process_request_packet` in `smp/src/smp.c`). The MCUmgr
/// parameters do not say which build a device runs, so unless `--smp-chunk` fixes the frame size the upload
/// asks the device (``SMPReassemblyProbe``) before it sends frames longer than one write.
public struct SMPFraming: Sendable, Hashable, CustomStringConvertible {
    /// Why the frames have their size.
    public enum Basis: Sendable, Hashable {
        /// `--smp-chunk` (the plan's frame size) was given: no question asked.
        case option
        /// The device's buf_size fits one write: no frame is ever split.
        case bufferFitsOneWrite
        /// The probe split over two writes came back whole: the device reassembles.
        case reassembles
        /// The probe's first write was answered MGMT_ERR_ECORRUPT: each write is one frame to the device.
        case doesNotReassemble
        /// The probe got no answer: frames are kept within one write, which every server takes.
        case probeUnanswered
        /// The plan said whether the device reassembles.
        case known(Bool)
    }

    /// The largest request frame, header included.
    public var frameLimit: Int
    /// The link's largest write (ATT MTU − 3).
    public var writeLength: Int
    /// Why.
    public var basis: Basis

    /// A framing.
    public init(frameLimit: Int, writeLength: Int, basis: Basis) {
        self.frameLimit = frameLimit
        self.writeLength = writeLength
        self.basis = basis
    }

    /// Whether a frame may take more than one write.
    public var splitsFrames: Bool { frameLimit > writeLength }

    /// e.g. "SMP frames of at most 244 bytes, one write each: the device does not reassemble (a frame split over
    /// two writes was answered MGMT_ERR_ECORRUPT)".
    public var description: String {
        let shape = splitsFrames
            ? "SMP frames of at most \(frameLimit) bytes over writes of \(writeLength)"
            : "SMP frames of at most \(frameLimit) bytes, one write each"
        switch basis {
        case .option: return shape + " (--smp-chunk)"
        case .bufferFitsOneWrite: return shape + ": the device's buf_size fits one write"
        case .reassembles: return shape + ": the device reassembles (a frame split over two writes was answered whole)"
        case .doesNotReassemble:
            return shape + ": the device does not reassemble (a frame split over two writes was answered MGMT_ERR_ECORRUPT)"
        case .probeUnanswered:
            return shape + ": a frame split over two writes was not answered, so none is split"
        case .known(let reassembles):
            return shape + (reassembles ? ": the device reassembles" : ": the device does not reassemble")
        }
    }
}

/// The question whether a device joins a frame written in two pieces: an echo request written as its header and
/// body head, then its text. The text begins with 8 bytes that read as an SMP header announcing 0x7F7F body bytes,
/// so a server that takes each write as a whole frame can only answer the second write MGMT_ERR_ECORRUPT
/// ("Does buffer contain whole message?" in `smp_process_request_packet`, zephyr `smp/src/smp.c`) and never runs
/// it as a command; the first write gets MGMT_ERR_ECORRUPT for the same reason. A server that reassembles echoes
/// the text (or, without the echo command, answers MGMT_ERR_ENOTSUP to the whole frame). Every byte of the text is
/// below 0x80, so it is valid UTF-8 as the echo's text string must be.
public struct SMPReassemblyProbe: Sendable, Hashable {
    /// The echo text.
    public let text: String

    /// The probe sent with sequence number `sequence`: the decoy header carries it (below 0x80) as its own.
    public init(sequence: UInt8) {
        // Read, SMP version 1, flags 0, length 0x7F7F, group 0, the sequence, command 0; then a marker.
        let decoy: [UInt8] = [0x00, 0x00, 0x7F, 0x7F, 0x00, 0x00, sequence & 0x7F, 0x00]
        text = String(decoding: decoy, as: UTF8.self) + "reassemble?"
    }

    /// The request.
    public var request: SMPRequest { .echo(text) }

    /// The frame's two writes: everything before the text, then the text (and whatever follows it).
    public func writes(of frame: [UInt8]) -> [[UInt8]] {
        let needle = Array(text.utf8)
        guard needle.count < frame.count,
              let start = (0...(frame.count - needle.count)).first(where: { frame[$0..<($0 + needle.count)].elementsEqual(needle) }),
              start > 0
        else { return [frame] }
        return [Array(frame[..<start]), Array(frame[start...])]
    }

    /// What an answer to the probe says: the device reassembles when it echoed the text or answered the whole
    /// frame with any error but MGMT_ERR_ECORRUPT (e.g. MGMT_ERR_ENOTSUP without the echo command); anything
    /// else (MGMT_ERR_ECORRUPT, another text) is taken as no.
    public func reassembles(given response: SMPResponse) -> Bool {
        switch response {
        case .echo(let answer): answer == text
        case .failure(.management(.corrupt, _)): false
        case .failure: true
        default: false
        }
    }
}
