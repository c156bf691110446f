import Dispatch
import SystemSupport

/// Connects SIGINT and SIGTERM to an ``InterruptController``: the first signal interrupts the
/// upload cleanly, a second one ends the process at once with status 130.
///
/// Keep the value alive for as long as signals should be handled.
public final class SignalInterrupts {
    private let sources: [any DispatchSourceSignal]

    /// Installs the handlers.
    ///
    /// The corresponding C function is `signal` (to ignore the default action); the signals are
    /// then delivered through Dispatch signal sources.
    public init(controller: InterruptController) {
        sources = [ProcessSignal.interrupt, .terminate].map { signal in
            CurrentProcess.ignore(signal)
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: .global())
            source.setEventHandler {
                if controller.isInterrupted { CurrentProcess.exit(130) }
                controller.interrupt()
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
