/// Joins notifications into SMP frames by the header's length: a frame longer than one ATT packet
/// is split without extra framing, and GATT keeps the pieces in order (zephyr
/// `doc/services/device_mgmt/smp_transport.rst`, "Bluetooth Low Energy"; the server's side of the
/// same rule is `smp_reassembly_collect` as called from `smp_bt_chr_write` in
/// `subsys/mgmt/mcumgr/transport/src/smp_bt.c`).
public struct SMPFrameAssembler: Sendable {
    private var pending: [UInt8] = []

    /// An empty assembler.
    public init() {}

    /// Bytes received that do not yet make a whole frame.
    public var bufferedCount: Int { pending.count }

    /// Forgets a partial frame (after a disconnect: the next notification starts a new frame).
    public mutating func reset() { pending.removeAll() }

    /// Adds one notification's bytes; returns every frame now complete, in order. A header that
    /// is not valid cannot be resynchronised (there are no markers): the buffered bytes are
    /// dropped and the error thrown.
    public mutating func append(_ notification: [UInt8]) throws(SMPFrame.DecodingError) -> [SMPFrame] {
        pending += notification
        var frames: [SMPFrame] = []
        while pending.count >= SMPHeader.size {
            let header: SMPHeader
            do {
                header = try SMPHeader(bytes: pending)
            } catch {
                pending.removeAll()
                throw .header(error)
            }
            let total = SMPHeader.size + Int(header.length)
            guard pending.count >= total else { break }
            frames.append(SMPFrame(header: header, body: Array(pending[SMPHeader.size..<total])))
            pending.removeFirst(total)
        }
        return frames
    }
}
