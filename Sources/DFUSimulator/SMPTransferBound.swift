import CBOR
import DFUCore

/// The fastest an SMP image transfer to a ``SimulatedZephyrTarget`` can be on a ``LinkModel``, whatever
/// the client does: from the first upload request's first write to the last upload answer.
///
/// Two constraints must both be met: the link must carry every upload frame (frames as large as the
/// target's buf_size allows, split into full writes, as many exchanges per connection event as fit), and the
/// target's work queue must do every frame's work one after another (decoding, the erases before or during
/// the upload, the writes, the final hash), which can start only when the first frame has arrived, and which
/// takes the next frame only once the answer before has been acknowledged (at least a connection interval: the
/// notification goes in an event and the central acknowledges it in the next; `smp_bt_tx_pkt` waits for that). The
/// last answer then needs at least one more exchange.
public struct SMPTransferBound: Sendable, Hashable, CustomStringConvertible {
    /// Upload frames needed (the first with `len` and `sha`).
    public let frames: Int
    /// Air time of every frame, in whole connection events but the last.
    public let link: Duration
    /// The target's work for every frame, and its waits for every answer but the last to be acknowledged.
    public let flash: Duration
    /// When the first frame has fully arrived.
    public let firstArrival: Duration
    /// The last answer's exchange.
    public let answer: Duration

    /// The bound for an image of `imageSize` bytes; `secondaryBlank`: whether the slot needs no erase first.
    public init(link model: LinkModel, configuration: ZephyrTargetConfiguration, imageSize: Int, secondaryBlank: Bool = false) {
        let payload = model.maximumWriteLength
        let frameLimit = configuration.reassembly ? configuration.bufferSize : min(configuration.bufferSize, payload)
        let first = SMPUploadChunk(length: imageSize, offset: 0, sha: [UInt8](repeating: 0, count: 32), data: [])
        var offset = 0
        var frames = 0
        var packets = 0
        var firstPackets = 0
        var work = Duration.zero
        while offset < imageSize {
            let chunk = offset == 0 ? first : SMPUploadChunk(offset: offset, data: [])
            let room = chunk.maxDataLength(frameLimit: frameLimit)
            let data = min(room, imageSize - offset)
            var sized = chunk
            sized.data = [UInt8](repeating: 0, count: data)
            let frameBytes = SMPHeader.size + ((try? sized.body.encoded().count) ?? 0)
            let pieces = (frameBytes + payload - 1) / payload
            if frames == 0 { firstPackets = pieces }
            packets += pieces
            frames += 1
            work += configuration.processingPerFrame + model.flash.writeTime(bytes: data)
            offset += max(1, data)
        }
        let pages = (imageSize + configuration.pageSize - 1) / configuration.pageSize
        if configuration.eraseProgressively {
            work += model.flash.pageErase * pages
        } else if !secondaryBlank {
            work += model.flash.pageErase * (pages + 1)
        }
        if configuration.imageCheck { work += model.flash.hashPerKilobyte * (imageSize / 1024 + 1) }
        work += model.connectionInterval * max(0, frames - 1)
        let perEvent = model.fullPacketsPerEvent
        let events = (packets + perEvent - 1) / perEvent
        self.frames = frames
        link = model.connectionInterval * max(0, events - 1) + model.exchangeTime(attPayload: payload) * min(packets, perEvent)
        flash = work
        firstArrival = model.exchangeTime(attPayload: payload) * firstPackets
        answer = model.exchangeTime(attPayload: 20)
    }

    /// max(link, first arrival + flash) + the last answer.
    public var total: Duration { max(link, firstArrival + flash) + answer }

    /// "flash" or "link".
    public var limitedBy: String { firstArrival + flash >= link ? "flash" : "link" }

    /// e.g. "link 1.2 s vs flash 0.01 s + 2.1 s (52 frames) + answer 0.2 ms → 2.1 s".
    public var description: String {
        "link \(link) vs flash \(firstArrival) + \(flash) (\(frames) frames) + answer \(answer) → \(total)"
    }
}
