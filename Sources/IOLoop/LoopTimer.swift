/// A deadline scheduled on an ``EventLoop``; ``cancel()`` drops it if it has not fired (idempotent).
public struct LoopTimer: Sendable {
    let loop: EventLoop
    let token: UInt64

    /// Drops the timer; its handler does not run unless it already started.
    public func cancel() {
        loop.cancelTimer(token: token)
    }
}
