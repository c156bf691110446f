import Synchronization
import SystemSupport

/// A Unix file descriptor with one owner, closed exactly once.
///
/// This is a `final class` rather than a `~Copyable` struct so that it can travel inside
/// ``DBusValue`` (an ordinary copyable enum) and across tasks. Copies of a value share the
/// same descriptor object; the descriptor is closed when ``close()`` is first called,
/// when it is handed over with ``takeRawValue()`` (then the caller must close it), or when
/// the last reference goes away, whichever comes first. Later calls do nothing.
///
/// Descriptors read from a message are duplicates made by libdbus (with `FD_CLOEXEC` set)
/// and are wrapped as soon as they are read. Descriptors appended to a message are
/// duplicated by libdbus, so the sender keeps ownership of its own copy.
public final class OwnedFileDescriptor: Sendable, Hashable, CustomStringConvertible {
    private let storage: Mutex<Int32>

    /// Takes ownership of `rawValue`, which this object will close.
    public init(taking rawValue: Int32) {
        storage = Mutex(rawValue)
    }

    /// The descriptor number while it is still open and owned here, or `nil`.
    ///
    /// The number is borrowed: do not close it, and do not use it after ``close()``.
    public var rawValue: Int32? {
        storage.withLock { $0 >= 0 ? $0 : nil }
    }

    /// Hands the descriptor over to the caller, who must close it; later calls return `nil`.
    public func takeRawValue() -> Int32? {
        storage.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor >= 0 ? descriptor : nil
        }
    }

    /// Closes the descriptor if it is still owned here. The corresponding C function is `close`.
    public func close() {
        if let descriptor = takeRawValue() {
            try? FileDescriptor(rawValue: descriptor).close()
        }
    }

    /// Makes an independent owned copy (``FileDescriptor/duplicate()``: `fcntl(F_DUPFD_CLOEXEC)`).
    public func duplicate() throws(DBusError) -> OwnedFileDescriptor {
        let copy = storage.withLock { descriptor in
            descriptor >= 0 ? try? FileDescriptor(rawValue: descriptor).duplicate() : nil
        }
        guard let copy else {
            throw DBusError.failed("Cannot duplicate a closed or invalid file descriptor")
        }
        return OwnedFileDescriptor(taking: copy.rawValue)
    }

    deinit {
        close()
    }

    /// Two descriptors are equal only when they are the same owner object.
    public static func == (lhs: OwnedFileDescriptor, rhs: OwnedFileDescriptor) -> Bool { lhs === rhs }

    /// Hashes the owner object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `fd N`, or `fd (closed)`.
    public var description: String { rawValue.map { "fd \($0)" } ?? "fd (closed)" }
}
