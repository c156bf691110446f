public import Foundation

/// A Foundation `Process`'s end, read without the trap Foundation sets for a process that has not ended.
///
/// Foundation's `terminationStatus` and `terminationReason` are guarded by `precondition(hasFinished)`:
/// read while the child still runs (or before it started) they end the whole test process with SIGILL on
/// whichever thread read them — a Dispatch worker thread of the shared pool for an async test — and, the
/// library being built optimised, with no message. A test whose wait for a child ran out of time did
/// exactly that (`ProcessEndTests`); every read of a child's end in the tests goes through here instead,
/// and `scripts/lint.sh` refuses any other.
extension Process {
    /// The exit status if the process was started and has ended; nil while it runs or before it starts.
    public var statusIfEnded: Int32? {
        guard processIdentifier > 0, !isRunning else { return nil }
        return terminationStatus
    }

    /// Whether the process was started, has ended, and ended by a signal it did not handle.
    public var endedBySignal: Bool {
        guard processIdentifier > 0, !isRunning else { return false }
        return terminationReason == .uncaughtSignal
    }

    /// Waits without blocking a thread for the started process to end, at most `limit`: its exit status,
    /// or nil if it still runs then (the caller decides whether to kill it).
    ///
    /// Woken by Foundation's termination handler (which this replaces), not by looking again and again;
    /// a process that ended before the handler was set is seen by the `isRunning` check that follows it
    /// (Foundation clears `isRunning` before it reads the handler).
    public func status(endingWithin limit: Duration) async -> Int32? {
        let (ended, end) = AsyncStream.makeStream(of: Void.self)
        terminationHandler = { _ in end.finish() }
        if !isRunning { end.finish() }
        let timer = Task {
            try? await Task.sleep(for: limit)
            end.finish()
        }
        for await _ in ended {}
        timer.cancel()
        return statusIfEnded
    }
}
