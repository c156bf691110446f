import DFUSimSupport
import Dispatch
import Synchronization
import SystemSupport

/// The signals `dfu-sim run` and `serve` act on (SIGINT, SIGTERM, SIGHUP), as they arrive: Dispatch signal
/// sources feeding one stream, installed once for the process, so a command waits for the next signal rather
/// than looking for one every few milliseconds.
///
/// Each signal's disposition is set to ignore (as `dfu`'s own ``SignalInterrupts`` does) so that only the
/// source acts on it; a command started by `dfu-sim run` gets the default dispositions back (``SpawnedProcess``).
final class DFUSimSignals: Sendable {
    /// The process's one set of sources (signals belong to the process, not to a caller).
    static let shared = DFUSimSignals([.interrupt, .terminate, .hangUp])

    /// Signals in the order they arrived; buffered until read.
    let arrivals: AsyncStream<ProcessSignal>
    private let sources: Mutex<[SourceBox]>

    /// Keeps a Dispatch source alive; it is never used after `init`.
    private struct SourceBox: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    private init(_ signals: [ProcessSignal]) {
        let (arrivals, continuation) = AsyncStream.makeStream(of: ProcessSignal.self)
        self.arrivals = arrivals
        var made: [SourceBox] = []
        for signal in signals {
            CurrentProcess.ignore(signal)
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: .global())
            source.setEventHandler {
                // Dispatch coalesces a burst of one signal into one event with a count.
                for _ in 0..<max(1, Int(source.data)) { continuation.yield(signal) }
            }
            source.resume()
            made.append(SourceBox(source: source))
        }
        sources = Mutex(made)
    }
}
