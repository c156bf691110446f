import BlueZ
import IOLoop
import Synchronization
import SystemSupport

/// Reads the descriptor AcquireNotify returned: one SOCK_SEQPACKET packet per notification.
///
/// The descriptor sits on the transport's ``EventLoop``: when it is readable the loop's thread hands
/// each queued packet to `onPacket`, in order, on that thread; when BlueZ closes its end (the link
/// dropped or notifications stopped) `onHangUp` is called once. A task that prefers the loop is thus
/// resumed on the thread that read the packet, with no other thread woken. ``flush()`` delivers what
/// is already queued in the socket (used before reporting a link loss, so a last response sent just
/// before the drop is not lost). ``stop()`` takes the descriptor off the loop and closes it there.
final class NotificationReader: Sendable {
    /// Why the reader could not start.
    struct StartFailure: Error {
        /// The errno of `epoll_ctl`.
        let code: Int32
    }

    /// What the loop and the owner share. Packets are read only with `stopped` locked and only while
    /// not stopped, so the loop and ``flush()`` deliver in order and never after ``stop()``.
    private final class Shared: Sendable {
        let descriptor: Int32
        let length: Int
        let loop: EventLoop
        let onPacket: @Sendable ([UInt8]) -> Void
        let onHangUp: @Sendable () -> Void
        /// Whether ``stop()`` was called or the peer hung up.
        let stopped = Mutex(false)
        /// The loop's watch (taken once, by whoever closes the descriptor), and whether a close was asked for before
        /// the watch was stored: the loop may report a socket that is already hung up before `init` has stored it.
        let watch = Mutex<(watch: LoopWatch?, closeAsked: Bool)>((nil, false))

        init(descriptor: Int32, length: Int, loop: EventLoop,
             onPacket: @escaping @Sendable ([UInt8]) -> Void, onHangUp: @escaping @Sendable () -> Void) {
            self.descriptor = descriptor
            self.length = length
            self.loop = loop
            self.onPacket = onPacket
            self.onHangUp = onHangUp
        }

        /// Delivers every queued packet; false when the peer hung up (then it is stopped).
        func drain() -> Bool {
            stopped.withLock { stopped in
                guard !stopped else { return true }
                var buffer = [UInt8](repeating: 0, count: length)
                while true {
                    let received = buffer.withUnsafeMutableBytes { bytes in
                        Result { () throws(Errno) in try FileDescriptor(rawValue: descriptor).receive(into: bytes, options: .dontWait) }
                    }
                    switch received {
                    case .success(let count) where count > 0:
                        onPacket(Array(buffer[0..<count]))
                    case .failure(.wouldBlock):
                        return true
                    default:
                        // 0: the peer hung up; any other error ends reading too.
                        stopped = true
                        return false
                    }
                }
            }
        }

        /// On the loop: the descriptor is readable (or hung up).
        func ready() {
            if !drain() {
                closeDescriptor()
                onHangUp()
            }
        }

        /// On the loop: off the loop, then closed; once. Before the watch is stored, only noted: ``store(_:)`` closes.
        func closeDescriptor() {
            let taken = watch.withLock { state -> LoopWatch? in
                guard let watch = state.watch.take() else {
                    state.closeAsked = true
                    return nil
                }
                return watch
            }
            guard let taken else { return }
            taken.cancel()
            try? FileDescriptor(rawValue: descriptor).close()
        }

        /// Keeps the loop's watch; closes at once if that was asked for meanwhile.
        func store(_ made: LoopWatch) {
            let closeAsked = watch.withLock { state in
                state.watch = made
                return state.closeAsked
            }
            if closeAsked { closeDescriptor() }
        }
    }

    private let shared: Shared

    /// Starts reading `descriptor` on `loop`; the reader now owns it (and closes it even when it cannot start).
    init(
        descriptor: BlueZSocket, loop: EventLoop, maximumLength: Int,
        onPacket: @escaping @Sendable ([UInt8]) -> Void, onHangUp: @escaping @Sendable () -> Void
    ) throws(StartFailure) {
        guard let raw = descriptor.takeRawValue() else { throw StartFailure(code: Errno.badFileDescriptor.rawValue) }
        let shared = Shared(descriptor: raw, length: max(maximumLength, 23), loop: loop,
                            onPacket: onPacket, onHangUp: onHangUp)
        do throws(EventLoopError) {
            shared.store(try loop.watch(raw, for: .readable) { [shared] _ in shared.ready() })
        } catch {
            try? FileDescriptor(rawValue: raw).close()
            throw StartFailure(code: error.code)
        }
        self.shared = shared
    }

    /// Delivers the packets already waiting in the socket, in order with the loop.
    func flush() {
        _ = shared.drain()
    }

    /// Stops reading; the loop takes the descriptor off and closes it. Idempotent.
    func stop() {
        shared.stopped.withLock { $0 = true }
        let shared = shared
        shared.loop.execute { shared.closeDescriptor() }
    }

    deinit {
        stop()
    }
}
