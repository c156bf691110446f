import Foundation
import Synchronization

/// Occupies every thread of Swift's shared pool (one blocked task per processor, the pool's width on Linux) while
/// `body` runs on `loop`, as a busy process does: a test run's synchronous tests and hundreds of ready tasks, or
/// a rig host's load. Code that needs the pool cannot run until `body` returns (or `limit` passes, so that a test
/// that fails does not stop the whole run); code on `executor` is not affected.
public func whileTheSharedPoolIsOccupied<T: Sendable>(
    on executor: any TaskExecutor, limit: Duration = .seconds(10), _ body: @Sendable () async throws -> T
) async throws -> T {
    let occupation = SharedPoolOccupation(threads: ProcessInfo.processInfo.activeProcessorCount)
    return try await withTaskExecutorPreference(executor) {
        await withCheckedContinuation { (allBlocked: CheckedContinuation<Void, Never>) in
            occupation.start(limit: limit, whenAllBlocked: allBlocked)
        }
        defer { occupation.release() }
        return try await body()
    }
}

/// The blocked tasks of ``whileTheSharedPoolIsOccupied(on:limit:_:)``.
private final class SharedPoolOccupation: Sendable {
    private struct State {
        var blocked = 0
        var allBlocked: CheckedContinuation<Void, Never>?
    }

    private let threads: Int
    private let state = Mutex(State())
    private let condition = NSCondition()
    private let released = Atomic<Bool>(false)

    init(threads: Int) {
        self.threads = threads
    }

    func start(limit: Duration, whenAllBlocked: CheckedContinuation<Void, Never>) {
        state.withLock { $0.allBlocked = whenAllBlocked }
        let until = Date(timeIntervalSinceNow: Double(limit.components.seconds))
        for _ in 0..<threads {
            Task.detached { [self] in block(until: until) }
        }
    }

    /// Holds this pool thread until released (or `until`).
    private func block(until: Date) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.blocked += 1
            guard state.blocked == threads else { return nil }
            defer { state.allBlocked = nil }
            return state.allBlocked
        }
        waiter?.resume()
        condition.lock()
        while !released.load(ordering: .acquiring), condition.wait(until: until) {}
        condition.unlock()
    }

    func release() {
        condition.lock()
        released.store(true, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
    }
}
