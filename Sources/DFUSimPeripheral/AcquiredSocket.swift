import Dispatch
import IOLoop
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
        /// Nobody has waited for the writes bluetoothd held while it acquired (``awaitHeldWrites(on:within:quiet:)``).
        var firstPacketDue = true
        /// bluetoothd closed its end (seen by a read; closing ours stays the read source's).
        var hungUp = false
        /// A task waiting for more than `beyond` packets in all; `wait` tells its timer from an earlier one's.
        var waiter: (wait: Int, beyond: Int, continuation: CheckedContinuation<Void, Never>)?
        var waits = 0
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
            let (gotPackets, closed, waiter) = state.withLock { state in
                let before = state.queue.count
                let closed = Self.receiveAll(descriptor, into: &state)
                if closed { state.hungUp = true }
                return (state.queue.count > before, closed, Self.dueWaiter(&state))
            }
            waiter?.resume()
            if gotPackets { onReadable() }
            if closed {
                close()
                onClosed()
            }
        }
        // The cancel handler closes the descriptor once the source stopped using it; set before the source is
        // activated (a handler set later is installed asynchronously, and a cancel could come first).
        let owned = descriptor
        source.setCancelHandler { try? FileDescriptor(rawValue: owned).close() }
        state.withLock { $0.source = SourceBox(source: source) }
        source.resume()
    }

    /// Every packet received so far, oldest first, including those still in the socket.
    func drain() -> [[UInt8]] {
        let (packets, waiter) = state.withLock { state in
            if !state.isClosed, Self.receiveAll(descriptor, into: &state) { state.hungUp = true }
            defer { state.queue.removeAll() }
            return (state.queue, Self.dueWaiter(&state))
        }
        waiter?.resume()
        return packets
    }

    /// Waits, once per socket, for the writes bluetoothd held while it acquired this socket for writing: until the
    /// first packet came and then `quiet` passed with no more (the loop writes them back to back), or the socket was
    /// closed, or `timeout` passed. Returns at once after the first call.
    ///
    /// bluetoothd acquires a write socket because a Write Command came; it holds that write, and any after it, until
    /// our answer to AcquireWrite reaches it, and then writes them all to the socket in one loop (BlueZ
    /// src/gatt-database.c, `acquire_write_reply`, sending `chrc->pending_writes`), while a Write Request it gets
    /// meanwhile goes to us at once as a WriteValue call. A device sees them in their ATT order; so the host, before
    /// it handles that call, waits here. The caller's task is suspended, no thread waits: the read source (or a
    /// ``drain()``) that takes a packet wakes it, and a timer of `loop` ends each wait.
    func awaitHeldWrites(on loop: EventLoop, within timeout: Duration, quiet: Duration) async {
        let due = state.withLock { state in
            defer { state.firstPacketDue = false }
            return state.firstPacketDue
        }
        guard due else { return }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var seen = 0
        while let received = await arrival(beyond: seen, by: seen == 0 ? deadline : min(deadline, .now + quiet), on: loop),
            received > seen
        {
            seen = received
        }
    }

    /// Suspends until more than `count` packets were received in all, the socket was closed, or `deadline`; returns
    /// how many were received, nil when the socket was closed.
    private func arrival(beyond count: Int, by deadline: ContinuousClock.Instant, on loop: EventLoop) async -> Int? {
        var timer: LoopTimer?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state -> Int? in
                if !state.isClosed, Self.receiveAll(descriptor, into: &state) { state.hungUp = true }
                guard state.received <= count, !state.isClosed, !state.hungUp else { return nil }
                state.waits += 1
                state.waiter = (state.waits, count, continuation)
                return state.waits
            }
            guard let wait else { return continuation.resume() }
            // Wakes this wait only: a timer that fires as it is cancelled must not end a later one.
            timer = loop.schedule(at: deadline) { [self] in
                state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard let waiter = state.waiter, waiter.wait == wait else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }?.resume()
            }
        }
        timer?.cancel()
        return state.withLock { state in state.isClosed || state.hungUp ? nil : state.received }
    }

    /// The waiter to wake now that packets came or the socket was closed (called under the lock).
    private static func dueWaiter(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        guard let waiter = state.waiter, state.received > waiter.beyond || state.isClosed || state.hungUp else { return nil }
        state.waiter = nil
        return waiter.continuation
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
        let (wasOpen, box, waiter) = state.withLock { state -> (Bool, SourceBox?, CheckedContinuation<Void, Never>?) in
            guard !state.isClosed else { return (false, nil, nil) }
            state.isClosed = true
            defer { state.source = nil }
            return (true, state.source, Self.dueWaiter(&state))
        }
        waiter?.resume()
        guard wasOpen else { return }
        if let source = box?.source {
            source.cancel()  // its cancel handler closes the descriptor
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
