import DBus
import Synchronization
import SystemSupport

/// The stand-in's end of a `SOCK_SEQPACKET` socket pair whose other end a client got from
/// `AcquireWrite` or `AcquireNotify`, as bluetoothd hands them out.
///
/// For AcquireWrite a reader thread turns each datagram into one write without response;
/// for AcquireNotify ``send(_:)`` writes each notification as one datagram. The descriptor is
/// closed exactly once: by the reader thread when it reads, else by ``close()``.
final class SequencedPacketChannel: Sendable {
    private struct State {
        var descriptor: Int32
        var reading = false
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

    /// Starts the watcher thread for an AcquireWrite channel: whenever datagrams arrive it moves
    /// them into the channel's queue and calls `readable`; after the client closes its end (or
    /// ``close()``), it calls `readable` one last time and ends.
    ///
    /// ``takePackets()`` returns everything received so far, including what is still in the
    /// kernel's buffer, so a caller that drains before handling a D-Bus call sees every datagram
    /// the client wrote before making that call.
    func startWatching(readable: @escaping @Sendable () -> Void) throws(DBusError) {
        let descriptor: Int32 = state.withLock { state in
            guard !state.closed, !state.reading else { return -1 }
            state.reading = true
            return state.descriptor
        }
        guard descriptor >= 0 else { throw BlueZNames.error("Failed", "The channel is closed") }
        let job = WatcherJob(descriptor: descriptor, channel: self, readable: readable)
        do {
            try DetachedThread.start { job.run() }
        } catch {
            state.withLock { $0.reading = false }
            throw BlueZNames.error("Failed", error.description)
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
    fileprivate func pull() -> Bool {
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

    /// Called by the reader thread as it ends.
    fileprivate func readerFinished() {
        state.withLock { state in
            state.closed = true
            state.ended = true
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

/// What a watcher thread needs; owned by the thread.
private final class WatcherJob: Sendable {
    let descriptor: Int32
    let channel: SequencedPacketChannel
    let readable: @Sendable () -> Void

    init(descriptor: Int32, channel: SequencedPacketChannel, readable: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        self.channel = channel
        self.readable = readable
    }

    func run() {
        while true {
            // Waits for datagrams or the client's end (poll is called again after a signal).
            let ready = try? FileDescriptor(rawValue: descriptor).poll(for: .readable, timeout: nil)
            let ended = ready == nil || channel.pull()
            readable()
            if ended { break }
        }
        channel.readerFinished()
    }
}
