/// A descriptor an ``EventLoop`` watches; ``cancel()`` stops the watch (idempotent).
public struct LoopWatch: Sendable {
    let loop: EventLoop
    let token: UInt64
    let descriptor: Int32
    let oneShot: Bool

    /// Watches for `interest` from now on (epoll_ctl, effective at once from any thread); a one-shot
    /// watch reports once more.
    public func change(to interest: Readiness) {
        loop.changeWatch(token: token, descriptor: descriptor, to: interest, oneShot: oneShot)
    }

    /// Removes the descriptor from the loop; its handler is not chosen again.
    public func cancel() {
        loop.cancelWatch(token: token, descriptor: descriptor)
    }
}
