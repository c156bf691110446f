import Dispatch
import Synchronization
import SystemSupport

/// Our end of a `SOCK_SEQPACKET` pair whose other end went to bluetoothd through
/// AcquireWrite (each packet is one ATT write) or AcquireNotify (each packet we send is one
/// notification).
///
/// Incoming packets are read under a lock into a queue, both by a dispatch read source and by
/// ``drain()``, so a caller that drains before handling a later D-Bus call sees every packet
/// bluetoothd wrote before that call, in order.
///
/// `@unchecked Sendable`: the descriptor is a constant, all mutable state is in `state` (a
/// `Mutex`), and the dispatch source is only touched under that lock.
final class AcquiredSocket: @unchecked Sendable {
    private struct State {
        var queue: [[UInt8]] = []
        var isClosed = false
        /// Nobody has waited for the writes bluetoothd held while it acquired (``awaitFirstPacket(within:)``).
        var firstPacketDue = true
        /// Packets received since the socket was made.
        var received = 0
        var source: SourceBox?
    }

    /// Carries a dispatch source through the lock; the source is only used while holding it.
    private struct SourceBox: @unchecked Sendable {
        let source: any DispatchSourceRead
    }

    /// Our end.
    private let descriptor: Int32
    private let state = Mutex(State())
    private static let readQueue = DispatchQueue(label: "dfu.peripheral.acquired")
    /// The largest packet accepted; bluetoothd writes at most the ATT MTU minus 3.
    private static let maximumPacket = 1024

    /// Makes a pair; returns ours and the end to hand to bluetoothd (which the caller must close after sending).
    static func makePair() throws(PeripheralError) -> (AcquiredSocket, Int32) {
        do throws(Errno) {
            let (ours, theirs) = try FileDescriptor.socketPair(.sequencedPacket)
            try? ours.setNonBlocking()
            return (AcquiredSocket(descriptor: ours.rawValue), theirs.rawValue)
        } catch {
            throw .socket(error.rawValue)
        }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Starts watching: `onReadable` runs after packets were queued, `onClosed` once when
    /// bluetoothd closes its end.
    func watch(onReadable: @escaping @Sendable () -> Void, onClosed: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: Self.readQueue)
        source.setEventHandler { [self] in
            let (gotPackets, closed) = state.withLock { state in
                let before = state.queue.count
                let closed = Self.receiveAll(descriptor, into: &state)
                return (state.queue.count > before, closed)
            }
            if gotPackets { onReadable() }
            if closed {
                close()
                onClosed()
            }
        }
        state.withLock { $0.source = SourceBox(source: source) }
        source.resume()
    }

    /// Every packet received so far, oldest first, including those still in the socket.
    func drain() -> [[UInt8]] {
        state.withLock { state in
            if !state.isClosed { _ = Self.receiveAll(descriptor, into: &state) }
            defer { state.queue.removeAll() }
            return state.queue
        }
    }

    /// Waits, once, up to `timeout` for the writes bluetoothd held while it acquired this socket for writing.
    ///
    /// bluetoothd acquires a write socket because a Write Command came; it holds that write, and any after it, until
    /// our answer to AcquireWrite reaches it, and then writes them all to the socket in one loop (BlueZ
    /// src/gatt-database.c, `acquire_write_reply`, sending `chrc->pending_writes`), while a Write Request it gets
    /// meanwhile goes to us at once as a WriteValue call. A device sees them in their ATT order; so the host, before
    /// it handles that call, waits here until the held writes have come: the first packet, then 5 ms with no more (the
    /// loop writes them back to back). Waits in poll(2) slices, since the read source may take a packet between a look
    /// and a poll; returns at once after the first call, or when the socket was closed.
    func awaitFirstPacket(within timeout: Duration) {
        guard state.withLock({ $0.firstPacketDue }) else { return }
        defer { state.withLock { $0.firstPacketDue = false } }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let quiet = Duration.milliseconds(5)
        var last = (count: 0, at: ContinuousClock.now)
        while ContinuousClock.now < deadline {
            // A socket bluetoothd closed ends the wait; closing our end stays the read source's (close(), onClosed).
            let (received, hungUp) = state.withLock { state -> (Int, Bool) in
                let hungUp = state.isClosed || Self.receiveAll(descriptor, into: &state)
                return (state.received, hungUp)
            }
            if hungUp { return }
            let now = ContinuousClock.now
            if received != last.count {
                last = (received, now)
            } else if received > 0, now - last.at >= quiet {
                return
            }
            _ = try? FileDescriptor(rawValue: descriptor).poll(for: .readable, timeout: received > 0 ? quiet : .milliseconds(10))
        }
    }

    /// Sends one packet (a notification); false when the other end is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            let sent = try? bytes.withUnsafeBytes { buffer throws(Errno) in
                try FileDescriptor(rawValue: descriptor).send(buffer, options: [.noSignal, .dontWait])
            }
            return sent == bytes.count
        }
    }

    /// Whether the socket was closed (by either side).
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Stops watching and closes our end. Calling it again does nothing.
    func close() {
        let (wasOpen, box) = state.withLock { state -> (Bool, SourceBox?) in
            guard !state.isClosed else { return (false, nil) }
            state.isClosed = true
            defer { state.source = nil }
            return (true, state.source)
        }
        guard wasOpen else { return }
        if let source = box?.source {
            // The cancel handler closes the descriptor once the source stopped using it.
            let descriptor = descriptor
            source.setCancelHandler { try? FileDescriptor(rawValue: descriptor).close() }
            source.cancel()
        } else {
            try? FileDescriptor(rawValue: descriptor).close()
        }
    }

    /// Reads packets until the socket is empty; returns true at end of file or on an error.
    private static func receiveAll(_ descriptor: Int32, into state: inout State) -> Bool {
        var buffer = [UInt8](repeating: 0, count: maximumPacket)
        while true {
            let received = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(Errno) in try FileDescriptor(rawValue: descriptor).receive(into: bytes, options: .dontWait) }
            }
            switch received {
            case .success(let count) where count > 0:
                state.queue.append(Array(buffer[0..<count]))
                state.received += 1
            case .success: return true
            case .failure(let error): return error != .wouldBlock
            }
        }
    }

    deinit {
        close()
    }
}
