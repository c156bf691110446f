import BlueZ
import Glibc
import Synchronization

/// Reads the descriptor AcquireNotify returned: one SOCK_SEQPACKET packet per notification.
///
/// A thread of its own blocks in `poll` on the descriptor and hands each packet to `onPacket`, in
/// order; when BlueZ closes its end (the link dropped or notifications stopped) `onHangUp` is called
/// once. A notification thus costs one wake-up of this thread and the engine's resumption, not a
/// dispatch event-loop pass and a queue hop as well (an upload waits for hundreds of them).
/// ``flush()`` delivers what is already queued in the socket (used before reporting a link loss, so
/// a last response sent just before the drop is not lost). ``stop()`` ends the thread, which closes
/// the descriptor exactly once.
final class NotificationReader: Sendable {
    /// Why the reader could not start.
    struct StartFailure: Error {
        /// The errno of `pipe` or the result of `pthread_create`.
        let code: Int32
    }

    /// What the thread and the owner share. Packets are read only with `state` locked and only while
    /// not stopped, so the thread and ``flush()`` deliver in order and never after ``stop()``.
    private final class Shared: Sendable {
        let descriptor: Int32
        /// The wake pipe: ``stop()`` writes a byte to end the thread's `poll`.
        let wakeRead: Int32
        let wakeWrite: Int32
        let length: Int
        let onPacket: @Sendable ([UInt8]) -> Void
        let onHangUp: @Sendable () -> Void
        /// Whether ``stop()`` was called or the peer hung up.
        let stopped = Mutex(false)

        init(descriptor: Int32, wake: (read: Int32, write: Int32), length: Int,
             onPacket: @escaping @Sendable ([UInt8]) -> Void, onHangUp: @escaping @Sendable () -> Void) {
            self.descriptor = descriptor
            self.wakeRead = wake.read
            self.wakeWrite = wake.write
            self.length = length
            self.onPacket = onPacket
            self.onHangUp = onHangUp
        }

        deinit {
            _ = Glibc.close(wakeRead)
            _ = Glibc.close(wakeWrite)
        }

        /// Delivers every queued packet; false when the peer hung up (then it is stopped).
        func drain() -> Bool {
            stopped.withLock { stopped in
                guard !stopped else { return true }
                var buffer = [UInt8](repeating: 0, count: length)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, length, Int32(MSG_DONTWAIT)) }
                    if count > 0 {
                        onPacket(Array(buffer[0..<count]))
                        continue
                    }
                    if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return true }
                    stopped = true
                    return false
                }
            }
        }

        /// The thread: wait for packets or the wake pipe; close the descriptor when done.
        func run() {
            var descriptors = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            var hungUp = false
            while !stopped.withLock({ $0 }) {
                descriptors[0].revents = 0
                descriptors[1].revents = 0
                let ready = poll(&descriptors, 2, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    hungUp = stopped.withLock { stopped in
                        defer { stopped = true }
                        return !stopped
                    }
                    break
                }
                if descriptors[1].revents != 0 { continue }
                if descriptors[0].revents != 0, !drain() {
                    hungUp = true
                    break
                }
            }
            _ = Glibc.close(descriptor)
            if hungUp { onHangUp() }
        }
    }

    private let shared: Shared

    /// Starts reading `descriptor`, which the reader now owns (and closes even when it cannot start).
    init(
        descriptor: BlueZSocket, maximumLength: Int,
        onPacket: @escaping @Sendable ([UInt8]) -> Void, onHangUp: @escaping @Sendable () -> Void
    ) throws(StartFailure) {
        guard let raw = descriptor.takeRawValue() else { throw StartFailure(code: EBADF) }
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else {
            let code = errno
            _ = Glibc.close(raw)
            throw StartFailure(code: code)
        }
        for end in pipe {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        let shared = Shared(descriptor: raw, wake: (pipe[0], pipe[1]), length: max(maximumLength, 23),
                            onPacket: onPacket, onHangUp: onHangUp)
        let context = Unmanaged.passRetained(shared).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<Shared>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<Shared>.fromOpaque(context).release()
            _ = Glibc.close(raw)
            throw StartFailure(code: created)
        }
        pthread_detach(thread)
        self.shared = shared
    }

    /// Delivers the packets already waiting in the socket, in order with the reading thread.
    func flush() {
        _ = shared.drain()
    }

    /// Stops reading; the thread closes the descriptor. Idempotent.
    func stop() {
        shared.stopped.withLock { $0 = true }
        var one: UInt8 = 1
        _ = Glibc.write(shared.wakeWrite, &one, 1)
    }

    deinit {
        stop()
    }
}
