/// The client's running model of a Secure bootloader's flash queue and receive buffers, on one
/// connection: it says how long to hold back the next packet so that it finds a free buffer.
///
/// Times are durations since any fixed origin the caller chooses. Every estimate errs late: an
/// operation is assumed to start when the client last learnt of it (a Create when its response
/// came, a packet `arrivalAllowance` after its write returned), so buffers are never thought free
/// before they are.
public struct FlashPacer: Sendable {
    /// The assumptions.
    public let pacing: FlashPacing
    private var flashBusyUntil: Duration = .zero
    private var releases: [Duration] = []
    private var preparedBank: Bool
    private var firstCreate: Duration?
    private var work: Duration = .zero
    /// ``writeTimes(bytes:)``'s last answer.
    private var lastWrite: (bytes: Int, scale: Int, write: Duration, scaled: Duration)?

    /// Each slow-down doubles every flash time assumed.
    public private(set) var slowdowns: Int

    /// A pacer for a bootloader whose bank is already prepared (`bankPrepared`) or not, already slowed
    /// down `slowdowns` times (at most 4: sixteen times the datasheet maxima).
    public init(pacing: FlashPacing, bankPrepared: Bool = false, slowdowns: Int = 0) {
        self.pacing = pacing
        self.preparedBank = bankPrepared
        self.slowdowns = min(max(0, slowdowns), Self.maximumSlowdowns)
    }

    /// The most slow-downs that count.
    public static let maximumSlowdowns = 4

    /// A packet was lost although the model said a buffer was free: the flash is slower than assumed.
    /// Every flash time is doubled from now on, and so is the work the model still had queued at `time`
    /// (the device is further behind than the model thought).
    public mutating func slowDown(at time: Duration) {
        guard slowdowns < Self.maximumSlowdowns else { return }
        slowdowns += 1
        // The device's queue has been busy at most since the first Create (or since the last answered Execute,
        // when it was empty), with all the work sent since, at the new rate; until that is done every buffer
        // may be busy.
        if let firstCreate {
            flashBusyUntil = max(flashBusyUntil, firstCreate + work * scale)
        }
        releases = Array(repeating: flashBusyUntil, count: max(1, pacing.receiveBuffers))
        prune(before: time)
    }

    private var scale: Int { 1 << slowdowns }

    /// Buffers the model holds busy at `time`.
    public func busyBuffers(at time: Duration) -> Int { releases.count - firstBusy(at: time) }

    /// How many packets written at `time` find a free buffer without waiting (a model of no buffers counts one, as
    /// ``earliestWrite(at:count:)`` does).
    public func freeBuffers(at time: Duration) -> Int {
        max(1, pacing.receiveBuffers) - min(busyBuffers(at: time), max(1, pacing.receiveBuffers))
    }

    /// The index of the first release after `time` (releases are in flash order, so never decrease).
    private func firstBusy(at time: Duration) -> Int {
        releases.firstIndex(where: { $0 > time }) ?? releases.count
    }

    /// The earliest time at or after `time` when a packet written then finds a free buffer, or, when it has
    /// to wait at all, when `count` packets would (so a sender wakes once for several packets).
    public func earliestWrite(at time: Duration, count: Int = 1) -> Duration {
        let first = firstBusy(at: time)
        let busy = releases.count - first
        let limit = max(1, pacing.receiveBuffers)
        guard busy >= limit else { return time }
        // The (busy − limit + n)th busy release frees the n-th buffer needed.
        let needed = min(busy, busy - limit + max(1, min(count, limit)))
        return releases[first + needed - 1]
    }

    /// When a sender with `pending` packets still to write should write the next one: at `time` when a buffer
    /// is free then, otherwise when ``FlashPacing/buffersPerWake`` buffers are (or all `pending` ones), so it
    /// wakes once for several packets.
    public func nextWrite(at time: Duration, pending: Int) -> Duration {
        earliestWrite(at: time, count: min(max(1, pending), max(1, pacing.buffersPerWake)))
    }

    /// A data object was created (its response arrived at `time`): the bootloader erases its page.
    public mutating func objectCreated(at time: Duration) {
        var erase = pacing.pageErase
        if !preparedBank {
            preparedBank = true
            erase += pacing.bankPreparation
        }
        flashBusyUntil = max(time, flashBusyUntil) + erase * scale
        if firstCreate == nil { firstCreate = time }
        work += erase
        prune(before: time)
    }

    /// The bootloader said its flash queue is empty at `time` (SDK 15–17 answer a data Execute only then):
    /// every buffer is free and nothing is queued, whatever the model still assumed.
    public mutating func flashIdle(at time: Duration) {
        flashBusyUntil = min(flashBusyUntil, time)
        releases.removeAll()
        // A later slow-down assumes only the work queued from here on.
        firstCreate = nil
        work = .zero
    }

    /// A packet of `bytes` bytes was written at `time`: it holds a buffer until its flash write is done.
    public mutating func packetWritten(bytes: Int, at time: Duration) {
        let (write, scaled) = writeTimes(bytes: bytes)
        flashBusyUntil = max(time + pacing.arrivalAllowance, flashBusyUntil) + scaled
        work += write
        releases.append(flashBusyUntil)
        prune(before: time)
    }

    /// The write time of a packet of `bytes` bytes, plain and slowed down: the last packet's, when it had as many
    /// bytes at the same slow-down (nearly every packet of an upload), without the generic `Duration * Int` again.
    private mutating func writeTimes(bytes: Int) -> (write: Duration, scaled: Duration) {
        if let last = lastWrite, last.bytes == bytes, last.scale == scale { return (last.write, last.scaled) }
        let write = pacing.writeTime(bytes: bytes)
        let scaled = write * scale
        lastWrite = (bytes, scale, write, scaled)
        return (write, scaled)
    }

    private mutating func prune(before time: Duration) {
        releases.removeFirst(firstBusy(at: time))
    }
}
