import Synchronization

/// Where Ctrl-C and SIGTERM arrive: cancels the running uploads so each sends Abort, disconnects
/// and releases its link.
///
/// `dfu` connects it to the process's signals (``SignalInterrupts``); tests call ``interrupt()``
/// at a chosen point of a simulated upload.
public final class InterruptController: Sendable {
    private struct State {
        var interrupted = false
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// A controller nobody has interrupted yet.
    public init() {}

    /// Whether ``interrupt()`` was called.
    public var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// Marks the run interrupted and calls every registered handler (once).
    public func interrupt() {
        let handlers: [@Sendable () -> Void] = state.withLock { state in
            guard !state.interrupted else { return [] }
            state.interrupted = true
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Registers what to do on interrupt; runs it at once when the run is already interrupted.
    func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        let runNow: Bool = state.withLock { state in
            if state.interrupted { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }
}
