import Dispatch
import Glibc
import Synchronization

/// Tells a waiting send when a socket has room again, without holding a thread: a dispatch write
/// source on a duplicate of the descriptor (so the source's lifetime never races the owner's
/// `close`), running only while a send waits and suspended otherwise.
final class WritableEvent: Sendable {
    private struct State: ~Copyable {
        var source: (any DispatchSourceWrite)?
        /// Whether the source is resumed; kept balanced with `suspend`, as dispatch requires.
        var running = false
        var waiter: (identifier: Int, continuation: CheckedContinuation<Bool, Never>)?
        var nextIdentifier = 0
    }

    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "dfu.packet-writer")
    /// The duplicate the source watches; open while `state.source` is set (its cancel handler closes it).
    private let watched: Int32

    /// Watches a duplicate of `descriptor`; nil when it cannot be duplicated.
    init?(watching descriptor: Int32) {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        watched = copy
        state = Mutex(State())
        let queue = queue
        state.withLock { state in
            let source = DispatchSource.makeWriteSource(fileDescriptor: copy, queue: queue)
            source.setCancelHandler { _ = Glibc.close(copy) }
            source.setEventHandler { [weak self] in self?.finish(writable: true, identifier: nil) }
            // A new source is inactive; activate it, then hold it until a send waits.
            source.activate()
            source.suspend()
            state.source = source
        }
    }

    deinit {
        close()
    }

    /// Suspends until the socket is writable (true) or `deadline` passes or the event is closed (false).
    func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return false }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            enum Start { case closed, writable, waiting(Int) }
            let start: Start = state.withLock { state in
                guard let source = state.source else { return .closed }
                // Room may have come between the failed send and now, before the source watched: look
                // once after arming, so the wait never depends on an edge that already passed.
                var poller = pollfd(fd: watched, events: Int16(POLLOUT), revents: 0)
                if poll(&poller, 1, 0) > 0 { return .writable }
                state.nextIdentifier += 1
                state.waiter = (state.nextIdentifier, continuation)
                if !state.running {
                    source.resume()
                    state.running = true
                }
                return .waiting(state.nextIdentifier)
            }
            let identifier: Int
            switch start {
            case .closed: return continuation.resume(returning: false)
            case .writable: return continuation.resume(returning: true)
            case .waiting(let waiting): identifier = waiting
            }
            let nanoseconds = remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [weak self] in
                self?.finish(writable: false, identifier: identifier)
            }
        }
    }

    /// Ends the wait `identifier` (nil = whichever is waiting) and holds the source again.
    private func finish(writable: Bool, identifier: Int?) {
        let continuation: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard let waiter = state.waiter, identifier == nil || waiter.identifier == identifier else { return nil }
            state.waiter = nil
            if state.running {
                state.source?.suspend()
                state.running = false
            }
            return waiter.continuation
        }
        continuation?.resume(returning: writable)
    }

    /// Cancels the source (its handler closes the duplicate) and ends any wait with false. Idempotent.
    func close() {
        let continuation: CheckedContinuation<Bool, Never>? = state.withLock { state in
            if let source = state.source {
                // Dispatch cancels only a resumed source cleanly.
                if !state.running { source.resume() }
                source.cancel()
            }
            state.source = nil
            state.running = false
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        continuation?.resume(returning: false)
    }
}
