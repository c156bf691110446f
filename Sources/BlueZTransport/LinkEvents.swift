import DFUCore
import Synchronization

/// What one connection delivers to the engine: notifications in arrival order, then the link going down.
///
/// Filled from the D-Bus signal task and the notification descriptors; drained by
/// ``DFUTransport/nextNotification(within:)`` and ``DFUTransport/waitForDisconnection(within:)``.
/// Timeouts run on the continuous clock.
final class LinkEvents: Sendable {
    private struct State {
        var queue: [DFUNotification] = []
        var isDown = false
        var nextIdentifier = 0
        var notificationWaiter: (identifier: Int, continuation: CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>)?
        var downWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        /// Waits whose timer fired before they registered (they end at once when they do).
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    /// Whether the link has gone down.
    var isDown: Bool { state.withLock { $0.isDown } }

    /// Queues a notification, or hands it to the waiting reader. Ignored once the link is down.
    func post(_ notification: DFUNotification) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>? in
            guard !state.isDown else { return nil }
            if let waiter = state.notificationWaiter {
                state.notificationWaiter = nil
                return waiter.continuation
            }
            state.queue.append(notification)
            return nil
        }
        waiter?.resume(returning: .success(notification))
    }

    /// Marks the link as down: a waiting reader gets `.disconnected` (after the queue drains), and
    /// every ``waitForDown(within:)`` returns true.
    func markDown() {
        let (reader, downWaiters) = state.withLock { state in
            state.isDown = true
            let reader = state.queue.isEmpty ? state.notificationWaiter?.continuation : nil
            if reader != nil { state.notificationWaiter = nil }
            let downWaiters = Array(state.downWaiters.values)
            state.downWaiters = [:]
            return (reader, downWaiters)
        }
        reader?.resume(returning: .failure(.disconnected))
        for waiter in downWaiters { waiter.resume(returning: true) }
    }

    /// The next notification; `.timedOut` after `timeout`, `.disconnected` when the link is down and nothing is queued.
    func next(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        let identifier = newIdentifier()
        let timer = Task { [weak self] in
            // A cancelled timer (the wait ended first) expires nothing.
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.expireReader(identifier, with: .timedOut)
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>) in
                let (immediate, displaced) = state.withLock {
                    state -> (Result<DFUNotification, DFUTransportError>?, CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>?) in
                    if !state.queue.isEmpty { return (.success(state.queue.removeFirst()), nil) }
                    if state.isDown { return (.failure(.disconnected), nil) }
                    if Task.isCancelled { return (.failure(.failed("cancelled")), nil) }
                    if state.expired.remove(identifier) != nil { return (.failure(.timedOut), nil) }
                    let displaced = state.notificationWaiter?.continuation
                    state.notificationWaiter = (identifier, continuation)
                    return (nil, displaced)
                }
                displaced?.resume(returning: .failure(.failed("another reader took over the notifications")))
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            expireReader(identifier, with: .failed("cancelled"))
        }
        return try result.get()
    }

    /// Waits until the link is down; false when it is still up after `timeout`.
    func waitForDown(within timeout: Duration) async -> Bool {
        let identifier = newIdentifier()
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self?.expireDownWaiter(identifier)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate = state.withLock { state -> Bool? in
                    if state.isDown { return true }
                    if Task.isCancelled || state.expired.remove(identifier) != nil { return false }
                    state.downWaiters[identifier] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            expireDownWaiter(identifier)
        }
    }

    private func newIdentifier() -> Int {
        state.withLock { state in
            state.nextIdentifier += 1
            return state.nextIdentifier
        }
    }

    private func expireReader(_ identifier: Int, with error: DFUTransportError) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>? in
            guard let waiter = state.notificationWaiter, waiter.identifier == identifier else {
                state.expired.insert(identifier)
                return nil
            }
            state.notificationWaiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: .failure(error))
    }

    private func expireDownWaiter(_ identifier: Int) {
        let waiter = state.withLock { state in
            let waiter = state.downWaiters.removeValue(forKey: identifier)
            if waiter == nil { state.expired.insert(identifier) }
            return waiter
        }
        waiter?.resume(returning: false)
    }
}
