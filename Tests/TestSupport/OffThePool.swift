import Foundation

/// Runs blocking work (a child process waited for, a pipe read to its end, a poll loop) on a thread
/// of its own and awaits its result, so that it never holds one of the few threads of Swift's shared
/// pool: with two cores the pool has two, and two tests blocking them would stall every other test's
/// tasks (their D-Bus replies and timers included) until they end.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
