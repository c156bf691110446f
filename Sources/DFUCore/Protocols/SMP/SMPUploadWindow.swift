/// The chunks of one image upload in flight: sizes, sequence numbers, and what each answer means.
///
/// The server's rules (zephyr `subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt.c`, `img_mgmt_upload`
/// and `img_mgmt_upload_inspect`): a chunk whose `off` is not the server's next offset is not
/// written, and the answer's `off` is the server's next offset either way; the first chunk (off 0)
/// carries `image`, `len`, `sha` (and `upgrade`) and at least the 32-byte image header; with the same
/// `sha` as an interrupted upload the server answers with where that upload stopped (resume); the
/// last chunk's answer has `match` when the server checks the hash (`CONFIG_IMG_ENABLE_IMAGE_CHECK`).
///
/// So an answer's `off` is always the truth: the window moves on when it is the end of the chunk
/// answered, and otherwise restarts from it (every chunk then in flight is stale and its answer
/// ignored). Requests in flight are limited to the window (``defaultSize(bufferCount:)`` unless given).
struct SMPUploadWindow: Sendable, Hashable {
    /// The requests in flight when the user gives no `--smp-window`: buf_count − 2, at least 1.
    ///
    /// Zephyr's SMP server keeps every request from its arrival until its answer has gone out, and the request
    /// in work a second buffer for that answer (`smp_process_request_packet` in `subsys/mgmt/mcumgr/smp/src/smp.c`
    /// allocates it from the same pool of buf_count), so buf_count − 1 requests would fit. But it frees the two
    /// only once the answer's notification has been transmitted (`smp_bt_tx_pkt` in `smp_bt.c` waits for
    /// `smp_notify_sem`, given by `smp_notify_finished`), and the next request, sent as soon as the answer
    /// arrives, can reach the server before that: a write finding no free buffer is dropped without a word
    /// (`smp_bt_chr_write`, a Write Command). Against Zephyr's own smp_svr in the VM (one boot, buf_count 4), a
    /// window of 3 lost requests and resynchronised again and again: 3.9 kB/s without reassembly and 86.5 kB/s
    /// with it, against 11.0 and 111.9 kB/s with 2 (Tests/BlueZVM/README.md, "Zephyr's smp_svr"). One request
    /// fewer keeps a buffer for the answer still going out.
    static func defaultSize(bufferCount: Int) -> Int {
        max(1, bufferCount - 2)
    }

    /// One request in flight.
    struct Sent: Sendable, Hashable {
        var sequence: UInt8
        var offset: Int
        var count: Int
    }

    /// What an answer meant.
    enum Answer: Sendable, Hashable {
        /// Not an answer to a request in flight (late, duplicated, or stale): nothing changes.
        case ignored
        /// The chunk is on the device.
        case progressed
        /// The server is elsewhere (its `off`): sending continues from there.
        case resynchronised(to: Int)
        /// The whole image is on the device (and, when the server said, its hash matches).
        case complete
        /// The hash did not match after the last chunk: sending starts again from 0 (`match` false).
        case freshStart
        /// `match` was false again after a fresh start.
        case hashMismatch
        /// The server's `off` is beyond the image (or missing).
        case invalidOffset(Int?)
    }

    let image: SMPUploadImage
    let frameLimit: Int
    let window: Int
    let upgradeOnly: Bool
    /// Where the next new chunk starts.
    private(set) var next = 0
    /// The server's next offset as last reported.
    private(set) var acknowledged = 0
    /// Requests in flight, oldest first.
    private(set) var inFlight: [Sent] = []
    /// Fresh starts after a `match` of false.
    private(set) var freshStarts = 0
    /// Requests sent, chunks sent again, and the most in flight at once.
    private(set) var requests = 0
    private(set) var retransmissions = 0
    private(set) var maxInFlight = 0
    /// Offsets ever sent, to count retransmissions.
    private var highestSent = 0

    init(image: SMPUploadImage, frameLimit: Int, window: Int, upgradeOnly: Bool) {
        self.image = image
        self.frameLimit = frameLimit
        self.window = max(1, window)
        self.upgradeOnly = upgradeOnly
    }

    /// The chunk that starts at `offset`, as large as the frame limit allows.
    func chunk(at offset: Int) -> SMPUploadChunk {
        var chunk = offset == 0
            ? SMPUploadChunk(image: image.image, length: image.bytes.count, offset: 0, sha: image.fileSHA256, data: [],
                             upgrade: upgradeOnly ? true : nil)
            : SMPUploadChunk(offset: offset, data: [])
        let count = min(chunk.maxDataLength(frameLimit: frameLimit), image.bytes.count - offset)
        chunk.data = Array(image.bytes[offset..<(offset + max(0, count))])
        return chunk
    }

    /// The data the first chunk can carry; Zephyr refuses a first chunk shorter than the 32-byte
    /// image header (`img_mgmt_upload_inspect`: IMG_MGMT_ERR_INVALID_IMAGE_HEADER).
    var firstChunkCapacity: Int { chunk(at: 0).data.count }

    /// Whether every byte is on the device.
    var isComplete: Bool { acknowledged >= image.bytes.count && inFlight.isEmpty }

    /// New chunks to send now, each with the next sequence number, until the window is full.
    mutating func fill(sequence: inout UInt8) -> [(sequence: UInt8, chunk: SMPUploadChunk)] {
        var out: [(sequence: UInt8, chunk: SMPUploadChunk)] = []
        while inFlight.count < window, next < image.bytes.count {
            let chunk = chunk(at: next)
            guard !chunk.data.isEmpty else { break }
            sequence &+= 1
            inFlight.append(Sent(sequence: sequence, offset: next, count: chunk.data.count))
            if next < highestSent { retransmissions += 1 }
            next += chunk.data.count
            highestSent = max(highestSent, next)
            requests += 1
            maxInFlight = max(maxInFlight, inFlight.count)
            out.append((sequence, chunk))
        }
        return out
    }

    /// Takes the answer to the request with `sequence`.
    mutating func answer(sequence: UInt8, offset: Int?, match: Bool?) -> Answer {
        guard let index = inFlight.firstIndex(where: { $0.sequence == sequence }) else { return .ignored }
        let sent = inFlight.remove(at: index)
        guard let offset, offset >= 0, offset <= image.bytes.count else { return .invalidOffset(offset) }
        if offset == image.bytes.count {
            if match == false {
                // The server dropped its upload state after the last chunk; a new one starts at 0.
                inFlight.removeAll()
                guard freshStarts == 0 else { return .hashMismatch }
                freshStarts += 1
                next = 0
                acknowledged = 0
                return .freshStart
            }
            acknowledged = offset
            inFlight.removeAll()
            return .complete
        }
        if offset == sent.offset + sent.count, offset >= acknowledged {
            acknowledged = offset
            return .progressed
        }
        // The server is at `offset`: what is in flight was sent for another offset and is stale.
        inFlight.removeAll()
        next = offset
        acknowledged = offset
        return .resynchronised(to: offset)
    }

    /// No answer came in time: every request in flight is presumed lost, and sending starts again
    /// from the oldest of them.
    mutating func timedOut() {
        if let oldest = inFlight.map(\.offset).min() { next = oldest }
        inFlight.removeAll()
    }
}
