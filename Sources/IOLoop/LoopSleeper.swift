import Synchronization

/// One ``EventLoop/sleep(until:)``: ended once, by its timer or by cancellation, whichever is first.
final class LoopSleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var timer: LoopTimer?
        var woken = false
    }

    private let state = Mutex(State())

    /// Registers the sleeping caller; false when it was woken (cancelled) before it slept.
    func begin(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        state.withLock { state in
            guard !state.woken else { return false }
            state.continuation = continuation
            return true
        }
    }

    /// Keeps the timer, to drop it when cancelled first.
    func hold(_ timer: LoopTimer) {
        let cancelled = state.withLock { state in
            state.timer = timer
            return state.woken
        }
        if cancelled { timer.cancel() }
    }

    /// Ends the sleep (idempotent).
    func wake() {
        let (continuation, timer) = state.withLock { state in
            state.woken = true
            defer {
                state.continuation = nil
                state.timer = nil
            }
            return (state.continuation, state.timer)
        }
        timer?.cancel()
        continuation?.resume()
    }
}
