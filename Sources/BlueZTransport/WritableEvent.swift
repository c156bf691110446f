import IOLoop
import Synchronization

/// Tells a waiting send when a socket has room again, without holding a thread: a one-shot watch
/// of the descriptor on the transport's ``EventLoop``, re-armed by each wait (epoll then reports at
/// once if room came between the failed send and the wait), with the wait's deadline a timer of
/// the same loop.
final class WritableEvent: Sendable {
    /// How a wait ended.
    enum Outcome: Equatable {
        /// The socket has room (or the peer hung up: the next send says so).
        case writable
        /// The deadline passed first.
        case timedOut
        /// ``close()`` was called.
        case closed
    }

    private struct State: ~Copyable {
        var watch: LoopWatch?
        var waiter: (identifier: Int, continuation: CheckedContinuation<Outcome, Never>, timer: LoopTimer)?
        var nextIdentifier = 0
    }

    private let state: Mutex<State>
    private let loop: EventLoop

    /// Watches `descriptor`, which the caller keeps open until ``close()``; nil when the loop refuses it.
    init?(watching descriptor: Int32, loop: EventLoop) {
        self.loop = loop
        state = Mutex(State())
        let watch: LoopWatch
        do throws(EventLoopError) {
            // Reports once now (a socket with room) and is ignored; each wait asks again.
            watch = try loop.watch(descriptor, for: .writable, oneShot: true) { [weak self] _ in
                self?.finish(.writable, identifier: nil)
            }
        } catch {
            return nil
        }
        state.withLock { $0.watch = watch }
    }

    deinit {
        close()
    }

    /// Suspends until the socket is writable, `deadline` passes, or the event is closed.
    func wait(until deadline: ContinuousClock.Instant) async -> Outcome {
        guard ContinuousClock.now < deadline else { return .timedOut }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let closed = state.withLock { state in
                guard let watch = state.watch else { return true }
                state.nextIdentifier += 1
                let identifier = state.nextIdentifier
                let timer = loop.schedule(at: deadline) { [weak self] in self?.finish(.timedOut, identifier: identifier) }
                state.waiter = (identifier, continuation, timer)
                watch.change(to: .writable)
                return false
            }
            if closed { continuation.resume(returning: .closed) }
        }
    }

    /// Ends the wait `identifier` (nil = whichever is waiting).
    private func finish(_ outcome: Outcome, identifier: Int?) {
        let continuation: CheckedContinuation<Outcome, Never>? = state.withLock { state in
            guard let waiter = state.waiter, identifier == nil || waiter.identifier == identifier else { return nil }
            state.waiter = nil
            waiter.timer.cancel()
            return waiter.continuation
        }
        continuation?.resume(returning: outcome)
    }

    /// Takes the descriptor off the loop and ends any wait with `.closed`; call before closing the
    /// descriptor. Idempotent.
    func close() {
        let continuation: CheckedContinuation<Outcome, Never>? = state.withLock { state in
            state.watch?.cancel()
            state.watch = nil
            defer { state.waiter = nil }
            state.waiter?.timer.cancel()
            return state.waiter?.continuation
        }
        continuation?.resume(returning: .closed)
    }
}
