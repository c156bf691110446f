import Glibc

/// A detached POSIX thread of its own, for work that blocks in the kernel (a socket read) and must
/// not take a thread of Swift's shared pool.
public enum DetachedThread {
    /// Starts `body` on a new detached thread; the error is `pthread_create`'s result.
    public static func start(_ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, box)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            throw ThreadStartError(code: created)
        }
        pthread_detach(thread)
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs blocking `body` (a wait for a child process, a pipe) on a thread of its own and resumes the
    /// caller with its result, so that no thread of Swift's shared pool waits for it. When no thread can
    /// be started, `body` runs on the caller's thread instead.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            do throws(ThreadStartError) {
                try start { continuation.resume(returning: body()) }
            } catch {
                continuation.resume(returning: body())
            }
        }
    }
}
