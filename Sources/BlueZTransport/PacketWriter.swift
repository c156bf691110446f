import DBus
import Glibc

/// Writes without response through the descriptor AcquireWrite returned (SOCK_SEQPACKET: one write per packet).
///
/// The descriptor is shared with bluetoothd, so its flags are left alone: each send is
/// non-blocking, and a full socket buffer is waited out with `poll`, which paces the writes to the link.
final class PacketWriter: Sendable {
    /// The descriptor, closed exactly once by ``close()`` or when the writer goes away.
    private let descriptor: OwnedFileDescriptor
    /// The ATT MTU AcquireWrite reported.
    let mtu: Int

    /// Takes ownership of `descriptor`.
    init(descriptor: OwnedFileDescriptor, mtu: Int) {
        self.descriptor = descriptor
        self.mtu = mtu
    }

    /// Why a send failed.
    enum Failure: Error {
        /// BlueZ closed its end: the link is down.
        case closed
        /// The buffer stayed full for the whole timeout.
        case timedOut
        /// Any other errno.
        case failed(Int32)
    }

    /// Sends one packet, waiting up to `timeout` for buffer space.
    func send(_ bytes: [UInt8], timeout: Duration) throws(Failure) {
        guard let raw = descriptor.rawValue else { throw .closed }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let sent = bytes.withUnsafeBytes { Glibc.send(raw, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if sent >= 0 { return }
            let error = errno
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { throw .timedOut }
                let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
                var poller = pollfd(fd: raw, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&poller, 1, min(milliseconds, 100))
                if ready > 0, poller.revents & Int16(POLLHUP | POLLERR) != 0 { throw .closed }
            case EPIPE, ECONNRESET, ENOTCONN, EBADF: throw .closed
            default: throw .failed(error)
            }
        }
    }

    /// Bytes written that bluetoothd has not read from the socket yet (`SIOCOUTQ`), nil when
    /// the descriptor is closed or the kernel does not say.
    func unreadBytes() -> Int? {
        guard let raw = descriptor.rawValue else { return nil }
        var amount: Int32 = 0
        // SIOCOUTQ (= TIOCOUTQ): for AF_UNIX sockets, the data still queued for the peer.
        guard ioctl(raw, UInt(TIOCOUTQ), &amount) == 0 else { return nil }
        return Int(amount)
    }

    /// Closes the descriptor (idempotent).
    func close() {
        descriptor.close()
    }
}
