internal import CInterruptSignals

/// SIGINT and SIGTERM as an event an event loop can wait for, with a way out that needs no loop.
///
/// The handler is C (`Sources/CInterruptSignals`), since a signal handler may make only async-signal-safe calls: the
/// first signal of either kind raises an ``EventCounter``, whose watcher starts an orderly stop; every later one ends
/// the process at once with status 130 from the handler itself, so a second Ctrl-C works even while the watcher is
/// busy or stuck.
public enum InterruptSignals {
    /// Installs the process's handler of SIGINT and SIGTERM, raising `counter` on the first signal. The corresponding
    /// C function is `sigaction`.
    public static func install(raising counter: EventCounter) throws(Errno) {
        _ = try SystemCall.once { interrupt_signals_install(counter.descriptor.rawValue) }
    }
}
