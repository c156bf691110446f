import Synchronization

/// A continuation resumed by whichever of several racing tasks delivers a value first; later
/// values are dropped.
final class FirstResult<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var early: Value?
        var delivered = false
    }

    private let state = Mutex(State())

    /// Makes an empty race.
    init() {}

    /// The continuation to resume; a value delivered before it was set resumes it at once.
    func resume(with continuation: CheckedContinuation<Value, Never>) {
        let early: Value? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Delivers `value`; returns whether it was the first.
    @discardableResult
    func deliver(_ value: Value) -> Bool {
        let (first, continuation): (Bool, CheckedContinuation<Value, Never>?) = state.withLock { state in
            guard !state.delivered else { return (false, nil) }
            state.delivered = true
            if let continuation = state.continuation {
                state.continuation = nil
                return (true, continuation)
            }
            state.early = value
            return (true, nil)
        }
        continuation?.resume(returning: value)
        return first
    }
}
