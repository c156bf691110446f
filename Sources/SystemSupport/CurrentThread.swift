#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The calling thread's identity, to tell later whether code runs on a given thread.
public enum CurrentThread {
    /// The calling thread's `pthread_t`, as a number (never 0 for a running thread on Linux).
    public static var id: UInt { UInt(pthread_self()) }

    /// Whether the calling thread is the one `id` names. The corresponding C function is `pthread_equal`.
    public static func isThread(_ id: UInt) -> Bool {
        pthread_equal(pthread_self(), pthread_t(id)) != 0
    }
}
