#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// Which epoll descriptors this process's own code made (``EpollSet``), so that a debug build can tell when a close
/// is about to end one it did not make.
///
/// libdispatch keeps one epoll descriptor for its whole life and traps (SIGILL, "Do not close random Unix
/// descriptors", `_dispatch_event_loop_drain` in its event_epoll.c) when `epoll_wait` finds it closed; the trap
/// names neither the closer nor the place. A close through ``FileDescriptor/close()`` of a number that now names an
/// epoll descriptor not made by an ``EpollSet`` (a stale number whose old owner already closed it, reused by
/// libdispatch) stops there instead, in debug builds, with the closer on the stack.
enum EpollOwnership {
    private static let owned = Mutex<Set<Int32>>([])

    /// An ``EpollSet`` made `descriptor`.
    static func made(_ descriptor: Int32) {
        owned.withLock { _ = $0.insert(descriptor) }
    }

    /// Closes an ``EpollSet``'s own descriptor (under the lock, so that a set made at once with the same number is
    /// not forgotten).
    static func close(_ descriptor: FileDescriptor) throws(Errno) {
        try owned.withLock { (owned) throws(Errno) in
            owned.remove(descriptor.rawValue)
            try descriptor.closeWithoutOwnershipCheck()
        }
    }

    /// Whether `descriptor` is an epoll descriptor that no ``EpollSet`` made (read from /proc/self/fd).
    static func isForeignEpoll(_ descriptor: Int32) -> Bool {
        var target = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
        guard length > 0 else { return false }
        let name = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name == "anon_inode:[eventpoll]" && !owned.withLock { $0.contains(descriptor) }
    }
}
