/// The continuous clock, sleeping on an ``EventLoop``'s timer: an engine that runs on the loop waits
/// on the same timerfd as everything else there, with no other thread woken to end its sleep.
public struct LoopClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    /// The loop whose timer ends the sleeps.
    public let loop: EventLoop

    /// A clock for `loop`.
    public init(loop: EventLoop) {
        self.loop = loop
    }

    public var now: Instant { ContinuousClock.now }

    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    /// Sleeps until `deadline`; throws `CancellationError` when the task is cancelled first, as
    /// `Task.sleep` does. The tolerance is not used (the timerfd fires at the deadline).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        await loop.sleep(until: deadline)
        try Task.checkCancellation()
    }
}
