internal import CLinux
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An eventfd: a counter in the kernel that one thread raises (``signal()``) to wake another that
/// waits for its descriptor to be readable, and that the waiter resets (``reset()``). Non-blocking,
/// closed on exec.
public struct EventCounter: Sendable {
    public let descriptor: FileDescriptor

    /// The corresponding C function is `eventfd`.
    public init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try SystemCall.once { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) })
    }

    /// Adds one: the descriptor becomes readable. (It cannot overflow in any real use; a failure is ignored.)
    public func signal() {
        var one: UInt64 = 1
        _ = try? withUnsafeBytes(of: &one) { bytes throws(Errno) in try descriptor.write(bytes) }
    }

    /// Reads the count back to zero: the descriptor is no longer readable.
    public func reset() {
        var value: UInt64 = 0
        _ = try? withUnsafeMutableBytes(of: &value) { bytes throws(Errno) in try descriptor.read(into: bytes) }
    }

    public func close() throws(Errno) {
        try descriptor.close()
    }
}
