import Dispatch
import Synchronization
import SystemSupport

/// Waits for SIGINT or SIGTERM (both are blocked from killing the process while it waits).
final class StopSignal: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let sources: Mutex<[SourceBox]> = Mutex([])

    /// Keeps a dispatch source alive; it is never used after `init`.
    private struct SourceBox: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    init() {
        var made: [SourceBox] = []
        for signal in [ProcessSignal.interrupt, .terminate] {
            CurrentProcess.ignore(signal)
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: .global())
            source.setEventHandler { [self] in fire() }
            source.resume()
            made.append(SourceBox(source: source))
        }
        sources.withLock { $0 = made }
    }

    private func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once a signal arrived.
    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}
