import DBus
import Dispatch
import Glibc
import Synchronization

/// Reads the descriptor AcquireNotify returned: one SOCK_SEQPACKET packet per notification.
///
/// Packets are handed to `onPacket` in order on a private serial queue; when BlueZ closes its end
/// (the link dropped or notifications stopped) `onHangUp` is called once. ``flush()`` delivers what
/// is already queued in the socket (used before reporting a link loss, so a last response sent just
/// before the drop is not lost). ``stop()`` closes the descriptor exactly once.
final class NotificationReader {
    /// The dispatch source; Dispatch documents `cancel()` as safe from any thread, which the
    /// event handler relies on to stop itself after a hang-up.
    private final class Source: @unchecked Sendable {
        let read: any DispatchSourceRead
        init(_ read: any DispatchSourceRead) { self.read = read }
    }

    private let source: Source
    private let queue: DispatchQueue
    private let drain: @Sendable () -> Bool

    /// Starts reading `descriptor`, which the reader now owns.
    init(
        descriptor: OwnedFileDescriptor, maximumLength: Int,
        onPacket: @escaping @Sendable ([UInt8]) -> Void, onHangUp: @escaping @Sendable () -> Void
    ) {
        let raw = descriptor.takeRawValue() ?? -1
        let queue = DispatchQueue(label: "dfu.bluez.notify")
        let source = Source(DispatchSource.makeReadSource(fileDescriptor: raw, queue: queue))
        let length = max(maximumLength, 23)
        // Touched only on `queue`: whether the cancel handler closed the descriptor.
        let closed = Mutex(false)
        // Reads every queued packet; false when the peer hung up.
        let drain: @Sendable () -> Bool = {
            guard !closed.withLock({ $0 }) else { return true }
            var buffer = [UInt8](repeating: 0, count: length)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(raw, $0.baseAddress, length, Int32(MSG_DONTWAIT)) }
                if count > 0 {
                    onPacket(Array(buffer[0..<count]))
                    continue
                }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return true }
                return false
            }
        }
        source.read.setEventHandler {
            if !drain() {
                source.read.cancel()
                onHangUp()
            }
        }
        source.read.setCancelHandler {
            closed.withLock { $0 = true }
            if raw >= 0 { _ = close(raw) }
        }
        self.source = source
        self.queue = queue
        self.drain = drain
        source.read.resume()
    }

    /// Delivers the packets already waiting in the socket, in order with the event handler.
    func flush() {
        queue.sync { _ = drain() }
    }

    /// Stops reading and closes the descriptor.
    func stop() {
        source.read.cancel()
    }

    deinit {
        source.read.cancel()
    }
}
