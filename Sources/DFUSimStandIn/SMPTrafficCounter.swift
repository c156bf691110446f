import DFUCore

/// Counts what a client does with an SMP server, for `--report`: request frames that reached the server,
/// the most requests it had waiting for an answer at once, and upload chunks sent again for an offset the
/// server had already received.
///
/// Frames are joined from the characteristic's writes and notifications by the SMP header's length, as
/// Zephyr's `smp_reassembly_collect` and a client's reassembly do (`smp_bt.c`; the header of
/// `smp_transport.rst`). A request is waiting from the moment its last write reached the server until its
/// answer's last notification was handed to the client.
public struct SMPTrafficCounter: Sendable {
    /// Request frames the server received.
    public private(set) var requests = 0
    /// The most requests waiting for an answer at once.
    public private(set) var maximumInFlight = 0
    /// Upload requests for an offset the server had already received in the same upload.
    public private(set) var retransmissions = 0

    /// Nothing counted yet.
    public init() {}

    private var inFlight = 0
    private var incoming = SMPFrameAssembler()
    private var outgoing = SMPFrameAssembler()
    /// The upload the chunks belong to: its first chunk's image, length and sha.
    private var upload: UploadKey?
    /// Offsets of the chunks received in that upload.
    private var received: Set<Int> = []

    private struct UploadKey: Hashable, Sendable {
        var image: Int
        var length: Int?
        var sha: [UInt8]?
    }

    /// A write the server took (a whole frame or a piece of one).
    public mutating func requestBytes(_ bytes: [UInt8]) {
        let frames: [SMPFrame]
        do {
            frames = try incoming.append(bytes)
        } catch {
            return
        }
        for frame in frames where !frame.header.operation.isResponse {
            requests += 1
            inFlight += 1
            maximumInFlight = max(maximumInFlight, inFlight)
            guard case .upload(let chunk)? = try? SMPRequest(frame: frame) else { continue }
            if chunk.offset == 0 {
                let key = UploadKey(image: chunk.image ?? 0, length: chunk.length, sha: chunk.sha)
                if key != upload {
                    upload = key
                    received = []
                }
            }
            if !received.insert(chunk.offset).inserted { retransmissions += 1 }
        }
    }

    /// A notification the server sent reached the client.
    public mutating func responseBytes(_ bytes: [UInt8]) {
        guard let frames = try? outgoing.append(bytes) else { return }
        for frame in frames where frame.header.operation.isResponse {
            inFlight = max(0, inFlight - 1)
        }
    }

    /// The link dropped: partial frames are gone and nothing is waiting any more.
    public mutating func linkDropped() {
        incoming.reset()
        outgoing.reset()
        inFlight = 0
    }
}
