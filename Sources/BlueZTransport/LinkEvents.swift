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
        let identifier = state.withLock { state in
            state.nextIdentifier += 1
            return state.nextIdentifier
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>) in
                let immediate = state.withLock { state -> Result<DFUNotification, DFUTransportError>? in
                    if !state.queue.isEmpty { return .success(state.queue.removeFirst()) }
                    if state.isDown { return .failure(.disconnected) }
                    if Task.isCancelled { return .failure(.failed("cancelled")) }
                    let previous = state.notificationWaiter
                    state.notificationWaiter = (identifier, continuation)
                    if let previous {
                        previous.continuation.resume(returning: .failure(.failed("another reader took over the notifications")))
                    }
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                    return
                }
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.expireReader(identifier, with: .timedOut)
                }
            }
        } onCancel: {
            expireReader(identifier, with: .failed("cancelled"))
        }
        return try result.get()
    }

    /// Waits until the link is down; false when it is still up after `timeout`.
    func waitForDown(within timeout: Duration) async -> Bool {
        let identifier = state.withLock { state in
            state.nextIdentifier += 1
            return state.nextIdentifier
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let isDown = state.withLock { state -> Bool in
                    if state.isDown || Task.isCancelled { return state.isDown }
                    state.downWaiters[identifier] = continuation
                    return false
                }
                if isDown || Task.isCancelled {
                    if isDown { continuation.resume(returning: true) } else { expireDownWaiter(identifier, continuation) }
                    return
                }
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.expireDownWaiter(identifier, nil)
                }
            }
        } onCancel: {
            expireDownWaiter(identifier, nil)
        }
    }

    private func expireReader(_ identifier: Int, with error: DFUTransportError) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>? in
            guard let waiter = state.notificationWaiter, waiter.identifier == identifier else { return nil }
            state.notificationWaiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: .failure(error))
    }

    private func expireDownWaiter(_ identifier: Int, _ unregistered: CheckedContinuation<Bool, Never>?) {
        if let unregistered {
            unregistered.resume(returning: false)
            return
        }
        let waiter = state.withLock { $0.downWaiters.removeValue(forKey: identifier) }
        waiter?.resume(returning: false)
    }
}
