import SystemSupport

extension EventLoop {
    /// Calls `handler` on the loop's thread at the process's first SIGINT or SIGTERM; any later one ends the process
    /// at once with status 130, from the signal handler itself, so it works while the loop is busy
    /// (``InterruptSignals``). For the process's one loop, once.
    @discardableResult
    public func onFirstInterruptSignal(_ handler: @escaping @Sendable () -> Void) throws(EventLoopError) -> LoopWatch {
        let counter: EventCounter
        do throws(Errno) { counter = try EventCounter() } catch {
            throw EventLoopError(operation: "eventfd", code: error.rawValue)
        }
        let watch: LoopWatch
        do {
            // The counter stays open for the life of the process: the signal handler may write to it at any time.
            watch = try self.watch(counter.descriptor.rawValue, for: .readable) { _ in
                counter.reset()
                handler()
            }
        } catch {
            try? counter.close()
            throw error
        }
        do throws(Errno) { try InterruptSignals.install(raising: counter) } catch {
            watch.cancel()
            try? counter.close()
            throw EventLoopError(operation: "sigaction", code: error.rawValue)
        }
        return watch
    }
}
