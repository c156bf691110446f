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
    /// The descriptor (nil once closed) and the event made on the first full buffer (most uploads never fill it).
    ///
    /// Both live under one lock, and every use of the number happens while holding it (each send is non-blocking, so
    /// the lock is held for one system call): a ``close()`` from another task waits for a send in progress and is
    /// never followed by a send, a watch or a `SIOCOUTQ` on the old number, which the process may have reused.
    private struct State: ~Copyable {
        var descriptor: Int32?
        var writable: WritableEvent?
    }

    private let state: Mutex<State>
    /// The ATT MTU AcquireWrite reported.
    let mtu: Int
    /// The loop that says when a full buffer has room again.
    private let loop: EventLoop

    /// Takes ownership of `descriptor`.
    init(descriptor: BlueZSocket, mtu: Int, loop: EventLoop) {
        state = Mutex(State(descriptor: descriptor.takeRawValue()))
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

    /// What one non-blocking send came to.
    private enum Attempt {
        case sent
        case full(WritableEvent)
        case failed(Failure)
    }

    /// Sends one packet, waiting up to `timeout` for buffer space.
    func send(_ bytes: [UInt8], timeout: Duration) async throws(Failure) {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            switch attempt(bytes) {
            case .sent: return
            case .failed(let failure): throw failure
            case .full(let event):
                // Woken when bluetoothd made room (or the peer hung up: the next send says EPIPE).
                switch await event.wait(until: deadline) {
                case .writable: continue
                case .timedOut: throw .timedOut
                case .closed: throw .closed
                }
            }
        }
    }

    /// Sends one packet if the socket takes it now: true when sent, false when its buffer is full (then ``send(_:timeout:)``
    /// waits for room). Synchronous, so a caller on an actor sends a burst of packets without leaving it for each (an
    /// `await` of ``send(_:timeout:)`` hops off the actor and back: two task switches per packet).
    func sendIfRoom(_ bytes: [UInt8]) throws(Failure) -> Bool {
        switch attempt(bytes) {
        case .sent: return true
        case .full: return false
        case .failed(let failure): throw failure
        }
    }

    /// One non-blocking send; on a full buffer, the event that says when it has room (made once, on the loop).
    private func attempt(_ bytes: [UInt8]) -> Attempt {
        state.withLock { state in
            guard let raw = state.descriptor else { return .failed(.closed) }
            let sent = bytes.withUnsafeBytes { buffer in
                Result { () throws(Errno) in try FileDescriptor(rawValue: raw).send(buffer, options: [.dontWait, .noSignal]) }
            }
            guard case .failure(let error) = sent else { return .sent }
            switch error {
            case .wouldBlock:
                if state.writable == nil { state.writable = WritableEvent(watching: raw, loop: loop) }
                guard let event = state.writable else { return .failed(.failed(error.rawValue)) }
                return .full(event)
            case .brokenPipe, .connectionReset, .notConnected, .badFileDescriptor: return .failed(.closed)
            default: return .failed(.failed(error.rawValue))
            }
        }
    }

    /// Bytes written that bluetoothd has not read from the socket yet (`SIOCOUTQ`), nil when
    /// the descriptor is closed or the kernel does not say.
    func unreadBytes() -> Int? {
        state.withLock { state in
            // SIOCOUTQ (= TIOCOUTQ): for AF_UNIX sockets, the data still queued for the peer.
            state.descriptor.flatMap { try? FileDescriptor(rawValue: $0).queuedOutputByteCount() }
        }
    }

    /// Closes the descriptor (idempotent): off the loop first, then closed, under the lock. A send waiting for room
    /// then ends as closed.
    func close() {
        state.withLock { state in
            state.writable?.close()
            state.writable = nil
            if let raw = state.descriptor { try? FileDescriptor(rawValue: raw).close() }
            state.descriptor = nil
        }
    }
}
