import DBus
import Dispatch
import Glibc

/// Reads the descriptor AcquireNotify returned: one SOCK_SEQPACKET packet per notification.
///
/// Packets are handed to `onPacket` in order on a private queue; when BlueZ closes its end
/// (the link dropped or notifications stopped) `onHangUp` is called once. ``stop()`` closes the
/// descriptor exactly once and may be called any number of times.
final class NotificationReader {
    /// The dispatch source; Dispatch documents `cancel()` as safe from any thread, which the
    /// event handler relies on to stop itself after a hang-up.
    private final class Source: @unchecked Sendable {
        let read: any DispatchSourceRead
        init(_ read: any DispatchSourceRead) { self.read = read }
    }

    private let source: Source

    /// Starts reading `descriptor`, which the reader now owns.
    init(
        descriptor: OwnedFileDescriptor, maximumLength: Int,
        onPacket: @escaping @Sendable ([UInt8]) -> Void, onHangUp: @escaping @Sendable () -> Void
    ) {
        let raw = descriptor.takeRawValue() ?? -1
        let queue = DispatchQueue(label: "dfu.bluez.notify")
        let source = Source(DispatchSource.makeReadSource(fileDescriptor: raw, queue: queue))
        let length = max(maximumLength, 23)
        source.read.setEventHandler { [source] in
            var buffer = [UInt8](repeating: 0, count: length)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(raw, $0.baseAddress, length, Int32(MSG_DONTWAIT)) }
                if count > 0 {
                    onPacket(Array(buffer[0..<count]))
                    continue
                }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                // 0 bytes (peer closed) or a hard error: the notifications are over.
                source.read.cancel()
                onHangUp()
                return
            }
        }
        source.read.setCancelHandler {
            if raw >= 0 { _ = close(raw) }
        }
        self.source = source
        source.read.resume()
    }

    /// Stops reading and closes the descriptor.
    func stop() {
        source.read.cancel()
    }

    deinit {
        source.read.cancel()
    }
}
