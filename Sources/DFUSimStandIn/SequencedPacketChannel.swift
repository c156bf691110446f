import DBus
import IOLoop
import Synchronization
import SystemSupport

/// The stand-in's end of a `SOCK_SEQPACKET` socket pair whose other end a client got from
/// `AcquireWrite` or `AcquireNotify`, as bluetoothd hands them out.
///
/// For AcquireWrite a watch of the descriptor on the bus's event loop turns each datagram into one write
/// without response, as bluetoothd's main loop watches the socket (`sock_io_read` on an `io_set_read_handler`);
/// for AcquireNotify ``send(_:)`` writes each notification as one datagram. The descriptor is closed exactly
/// once: by the watch when the client's end is gone, else by ``close()``.
final class SequencedPacketChannel: Sendable {
    private struct State {
        var descriptor: Int32
        var reading = false
        /// The loop's watch while ``reading``.
        var watch: LoopWatch?
        var closed = false
        var ended = false
        var queue: [[UInt8]] = []
    }

    private let state: Mutex<State>

    private init(descriptor: Int32) { state = Mutex(State(descriptor: descriptor)) }

    /// A connected pair: ours, and the client's end (to send in the method reply).
    static func makePair() throws(DBusError) -> (ours: SequencedPacketChannel, theirs: OwnedFileDescriptor) {
        do throws(Errno) {
            let (ours, theirs) = try FileDescriptor.socketPair(.sequencedPacket)
            return (SequencedPacketChannel(descriptor: ours.rawValue), OwnedFileDescriptor(taking: theirs.rawValue))
        } catch {
            throw BlueZNames.error("Failed", "socketpair failed: \(error)")
        }
    }

    /// Sends one datagram without blocking; false when the client closed its end or the queue is full.
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.closed, state.descriptor >= 0 else { return false }
            let sent = try? bytes.withUnsafeBytes { buffer throws(Errno) in
                try FileDescriptor(rawValue: state.descriptor).send(buffer, options: [.noSignal, .dontWait])
            }
            return sent == bytes.count
        }
    }

    /// Whether the client closed its end (checked without waiting).
    var isHungUp: Bool {
        state.withLock { state in
            guard !state.closed, state.descriptor >= 0 else { return true }
            let events = (try? FileDescriptor(rawValue: state.descriptor).poll(for: [], timeout: .zero)) ?? []
            return !events.isDisjoint(with: [.hangUp, .error])
        }
    }

    /// Starts watching an AcquireWrite channel on `loop`: whenever datagrams arrive the loop's thread moves
    /// them into the channel's queue and calls `readable`; after the client closes its end (or ``close()``),
    /// it calls `readable` one last time and stops watching.
    ///
    /// ``takePackets()`` returns everything received so far, including what is still in the
    /// kernel's buffer, so a caller that drains before handling a D-Bus call sees every datagram
    /// the client wrote before making that call.
    func startWatching(on loop: EventLoop, readable: @escaping @Sendable () -> Void) throws(DBusError) {
        try state.withLock { state throws(DBusError) in
            guard !state.closed, !state.reading, state.descriptor >= 0 else {
                throw BlueZNames.error("Failed", "The channel is closed")
            }
            do throws(EventLoopError) {
                // Held under the lock: the handler, which takes it too, cannot run before the watch is stored.
                state.watch = try loop.watch(state.descriptor, for: .readable) { [self] _ in
                    let ended = pull()
                    readable()
                    if ended { readerFinished() }
                }
                state.reading = true
            } catch {
                throw BlueZNames.error("Failed", error.description)
            }
        }
    }

    /// The datagrams received so far, in order, and whether the client's end is closed.
    func takePackets() -> (packets: [[UInt8]], ended: Bool) {
        state.withLock { state in
            Self.receiveAvailable(&state)
            defer { state.queue = [] }
            return (state.queue, state.ended)
        }
    }

    /// Moves every datagram waiting in the kernel into the queue (never blocks).
    private func pull() -> Bool {
        state.withLock { state in
            Self.receiveAvailable(&state)
            return state.ended
        }
    }

    private static func receiveAvailable(_ state: inout State) {
        guard state.descriptor >= 0, !state.ended else { return }
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let descriptor = FileDescriptor(rawValue: state.descriptor)
            let received = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(Errno) in try descriptor.receive(into: raw, options: .dontWait) }
            }
            switch received {
            case .success(let count) where count > 0:
                state.queue.append(Array(buffer[0..<count]))
            case .failure(.wouldBlock):
                return
            default:
                // 0: the client closed its end; any other error ends the channel too.
                state.ended = true
                return
            }
        }
    }

    /// Closes our end (the client sees end of file); a reader thread finishes and closes it.
    func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            guard state.descriptor >= 0 else { return }
            try? FileDescriptor(rawValue: state.descriptor).shutDown()
            if !state.reading {
                try? FileDescriptor(rawValue: state.descriptor).close()
                state.descriptor = -1
            }
        }
    }

    /// On the loop, once the client's end is gone: off the loop first, then closed.
    private func readerFinished() {
        state.withLock { state in
            state.closed = true
            state.ended = true
            state.watch.take()?.cancel()
            if state.descriptor >= 0 { try? FileDescriptor(rawValue: state.descriptor).close() }
            state.descriptor = -1
            state.reading = false
        }
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0, !state.reading { try? FileDescriptor(rawValue: state.descriptor).close() }
        }
    }
}
