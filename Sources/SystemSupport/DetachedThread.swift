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
}
