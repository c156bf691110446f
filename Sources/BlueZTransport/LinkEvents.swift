import DFUCore
import IOLoop
import Synchronization

/// What one connection delivers to the engine: notifications in arrival order, then the link going down.
///
/// Filled from the D-Bus signal task and the notification descriptors; drained by
/// ``DFUTransport/nextNotification(within:)`` and ``DFUTransport/waitForDisconnection(within:)``.
/// Timeouts run on the continuous clock, through one timer of the transport's ``EventLoop`` set
/// lazily: a wait whose deadline is later than the one already set does not touch it, and when the
/// timer fires it expires what is due and sets it again for the earliest deadline left. An upload
/// waits for a notification hundreds of times and each wait usually ends long before its timeout,
/// so this costs one timer per timeout period rather than a timer and a wake-up per wait.
final class LinkEvents: Sendable {
    private typealias NotificationContinuation = CheckedContinuation<Result<DFUNotification, DFUTransportError>, Never>

    private struct State {
        var queue: [DFUNotification] = []
        var isDown = false
        var nextIdentifier = 0
        var notificationWaiter: (identifier: Int, deadline: ContinuousClock.Instant, continuation: NotificationContinuation)?
        var downWaiters: [Int: (deadline: ContinuousClock.Instant, continuation: CheckedContinuation<Bool, Never>)] = [:]
        /// Waits cancelled before they registered (they end at once when they do).
        var cancelled: Set<Int> = []
        /// When the timer is set to fire; nil when it is not set.
        var armedFor: ContinuousClock.Instant?
        var timer: LoopTimer?
    }

    private let state = Mutex(State())
    private let loop: EventLoop

    /// Events of a new connection, timed on `loop`.
    init(loop: EventLoop) {
        self.loop = loop
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// Whether the link has gone down.
    var isDown: Bool { state.withLock { $0.isDown } }

    /// Queues a notification, or hands it to the waiting reader. Ignored once the link is down.
    func post(_ notification: DFUNotification) {
        let waiter = state.withLock { state -> NotificationContinuation? in
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
            let downWaiters = state.downWaiters.values.map(\.continuation)
            state.downWaiters = [:]
            return (reader, downWaiters)
        }
        reader?.resume(returning: .failure(.disconnected))
        for waiter in downWaiters { waiter.resume(returning: true) }
    }

    /// The next notification; `.timedOut` after `timeout`, `.disconnected` when the link is down and nothing is queued.
    func next(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        let identifier = newIdentifier()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: NotificationContinuation) in
                let (immediate, displaced) = state.withLock { state -> (Result<DFUNotification, DFUTransportError>?, NotificationContinuation?) in
                    if !state.queue.isEmpty { return (.success(state.queue.removeFirst()), nil) }
                    if state.isDown { return (.failure(.disconnected), nil) }
                    if Task.isCancelled || state.cancelled.remove(identifier) != nil { return (.failure(.failed("cancelled")), nil) }
                    guard timeout > .zero else { return (.failure(.timedOut), nil) }
                    let deadline = ContinuousClock.now.advanced(by: timeout)
                    let displaced = state.notificationWaiter?.continuation
                    state.notificationWaiter = (identifier, deadline, continuation)
                    arm(for: deadline, state: &state)
                    return (nil, displaced)
                }
                displaced?.resume(returning: .failure(.failed("another reader took over the notifications")))
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancelReader(identifier)
        }
        return try result.get()
    }

    /// Waits until the link is down; false when it is still up after `timeout`.
    func waitForDown(within timeout: Duration) async -> Bool {
        let identifier = newIdentifier()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate = state.withLock { state -> Bool? in
                    if state.isDown { return true }
                    if Task.isCancelled || state.cancelled.remove(identifier) != nil || timeout <= .zero { return false }
                    let deadline = ContinuousClock.now.advanced(by: timeout)
                    state.downWaiters[identifier] = (deadline, continuation)
                    arm(for: deadline, state: &state)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancelDownWaiter(identifier)
        }
    }

    private func newIdentifier() -> Int {
        state.withLock { state in
            state.nextIdentifier += 1
            return state.nextIdentifier
        }
    }

    /// Makes the timer fire by `deadline`; leaves it alone when it already fires earlier.
    private func arm(for deadline: ContinuousClock.Instant, state: inout State) {
        if let armed = state.armedFor, armed <= deadline { return }
        state.armedFor = deadline
        state.timer?.cancel()
        state.timer = loop.schedule(at: deadline) { [weak self] in self?.expireDue() }
    }

    /// The timer fired: ends the waits that are due and re-arms for the earliest one left.
    private func expireDue() {
        let (reader, downWaiters) = state.withLock { state in
            let now = ContinuousClock.now
            var reader: NotificationContinuation?
            if let waiter = state.notificationWaiter, waiter.deadline <= now {
                state.notificationWaiter = nil
                reader = waiter.continuation
            }
            var downWaiters: [CheckedContinuation<Bool, Never>] = []
            for (identifier, waiter) in state.downWaiters where waiter.deadline <= now {
                state.downWaiters[identifier] = nil
                downWaiters.append(waiter.continuation)
            }
            state.armedFor = nil
            state.timer = nil
            let deadlines = state.downWaiters.values.map(\.deadline) + [state.notificationWaiter?.deadline].compactMap { $0 }
            if let earliest = deadlines.min() { arm(for: earliest, state: &state) }
            return (reader, downWaiters)
        }
        reader?.resume(returning: .failure(.timedOut))
        for waiter in downWaiters { waiter.resume(returning: false) }
    }

    private func cancelReader(_ identifier: Int) {
        let waiter = state.withLock { state -> NotificationContinuation? in
            guard let waiter = state.notificationWaiter, waiter.identifier == identifier else {
                state.cancelled.insert(identifier)
                return nil
            }
            state.notificationWaiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: .failure(.failed("cancelled")))
    }

    private func cancelDownWaiter(_ identifier: Int) {
        let waiter = state.withLock { state in
            let waiter = state.downWaiters.removeValue(forKey: identifier)
            if waiter == nil { state.cancelled.insert(identifier) }
            return waiter
        }
        waiter?.continuation.resume(returning: false)
    }
}
