import BlueZ
import IOLoop
import Synchronization
import SystemSupport

/// Writes without response through the descriptor AcquireWrite returned (SOCK_SEQPACKET: one write per packet).
///
/// The descriptor is shared with bluetoothd, so its flags are left alone: each send is
/// non-blocking, and a full socket buffer is waited out on a ``WritableEvent`` on the transport's
/// ``EventLoop`` (no thread is held while bluetoothd drains it), which paces the writes to the link.
final class PacketWriter: Sendable {
    /// The descriptor, closed exactly once by ``close()`` or when the writer goes away.
    private let descriptor: BlueZSocket
    /// The ATT MTU AcquireWrite reported.
    let mtu: Int
    /// The loop that says when a full buffer has room again.
    private let loop: EventLoop
    /// Made on the first full buffer: most uploads never fill it.
    private let writable = Mutex<WritableEvent?>(nil)

    /// Takes ownership of `descriptor`.
    init(descriptor: BlueZSocket, mtu: Int, loop: EventLoop) {
        self.descriptor = descriptor
        self.mtu = mtu
        self.loop = loop
    }

    deinit {
        close()
    }

    /// Why a send failed.
    enum Failure: Error, Equatable {
        /// BlueZ closed its end: the link is down.
        case closed
        /// The buffer stayed full for the whole timeout.
        case timedOut
        /// Any other errno.
        case failed(Int32)
    }

    /// Sends one packet, waiting up to `timeout` for buffer space.
    func send(_ bytes: [UInt8], timeout: Duration) async throws(Failure) {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            guard let raw = descriptor.rawValue else { throw .closed }
            let sent = bytes.withUnsafeBytes { buffer in
                Result { () throws(Errno) in try FileDescriptor(rawValue: raw).send(buffer, options: [.dontWait, .noSignal]) }
            }
            guard case .failure(let error) = sent else { return }
            switch error {
            case .wouldBlock:
                guard let event = writableEvent(for: raw) else { throw .failed(error.rawValue) }
                // Woken when bluetoothd made room (or the peer hung up: the next send says EPIPE).
                switch await event.wait(until: deadline) {
                case .writable: continue
                case .timedOut: throw .timedOut
                case .closed: throw .closed
                }
            case .brokenPipe, .connectionReset, .notConnected, .badFileDescriptor: throw .closed
            default: throw .failed(error.rawValue)
            }
        }
    }

    private func writableEvent(for raw: Int32) -> WritableEvent? {
        writable.withLock { event in
            if event == nil { event = WritableEvent(watching: raw, loop: loop) }
            return event
        }
    }

    /// Bytes written that bluetoothd has not read from the socket yet (`SIOCOUTQ`), nil when
    /// the descriptor is closed or the kernel does not say.
    func unreadBytes() -> Int? {
        guard let raw = descriptor.rawValue else { return nil }
        // SIOCOUTQ (= TIOCOUTQ): for AF_UNIX sockets, the data still queued for the peer.
        return try? FileDescriptor(rawValue: raw).queuedOutputByteCount()
    }

    /// Closes the descriptor (idempotent).
    func close() {
        // Off the loop first: its number may be reused once closed. A send waiting then ends as closed.
        writable.withLock { $0 }?.close()
        descriptor.close()
    }
}
