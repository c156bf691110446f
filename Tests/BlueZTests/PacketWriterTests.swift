import BlueZ
import Foundation
import Glibc
import IOLoop
import Synchronization
import Testing

@testable import BlueZTransport

/// The AcquireWrite socket as dfu sees it: a SOCK_SEQPACKET pair stands in for dfu's end and
/// bluetoothd's.
@Suite struct PacketWriterTests {
    /// A writer on one end of a fresh pair, and the other end's descriptor (the test closes it). Close on exec, so
    /// that a process another suite starts does not keep the pair's ends past its exec.
    static func pair() throws -> (PacketWriter, Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        return (PacketWriter(descriptor: BlueZSocket(taking: ends[0]), mtu: 247, loop: try EventLoop.shared()), ends[1])
    }

    @Test func unreadBytesCountWhatThePeerHasNotReadYet() async throws {
        let (writer, peer) = try Self.pair()
        defer { _ = close(peer) }
        #expect(writer.unreadBytes() == 0)
        try await writer.send([UInt8](repeating: 0xA5, count: 244), timeout: .seconds(1))
        try await writer.send([UInt8](repeating: 0x5A, count: 100), timeout: .seconds(1))
        // The kernel charges each packet with its overhead: at least the payload is unread.
        let queued = try #require(writer.unreadBytes())
        #expect(queued >= 344)
        var buffer = [UInt8](repeating: 0, count: 512)
        #expect(recv(peer, &buffer, buffer.count, 0) == 244)
        let afterOne = try #require(writer.unreadBytes())
        #expect(afterOne > 0 && afterOne < queued)
        #expect(recv(peer, &buffer, buffer.count, 0) == 100)
        #expect(writer.unreadBytes() == 0)
    }

    @Test func unreadBytesIsNilOnceClosed() throws {
        let (writer, peer) = try Self.pair()
        defer { _ = close(peer) }
        writer.close()
        #expect(writer.unreadBytes() == nil)
    }

    /// bluetoothd's end gone, as the writer sees it: shut down, then closed. A close alone leaves the socket open
    /// while any other descriptor for it lives, and a process another suite is starting holds a copy of every
    /// descriptor from its fork to its exec: a send in that window still finds room (seen once under ASan).
    static func hangUp(_ peer: Int32) {
        _ = shutdown(peer, Int32(SHUT_RDWR))
        _ = close(peer)
    }

    /// Runs `work` on a thread of its own after `delay`: bluetoothd's side of the socket, independent
    /// of the Swift concurrency pool (which other suites' blocking waits may keep busy).
    static func peer(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
        Thread {
            usleep(UInt32(delay.components.attoseconds / 1_000_000_000_000) + UInt32(delay.components.seconds) * 1_000_000)
            work()
        }.start()
    }

    /// Sends 244-byte packets until the socket buffer is full; returns how many went.
    static func fill(_ writer: PacketWriter) async -> Int {
        var count = 0
        while (try? await writer.send([UInt8](repeating: 0xEE, count: 244), timeout: .zero)) != nil { count += 1 }
        return count
    }

    /// bluetoothd reads the socket whenever it is readable, so it drains it; the kernel reports a
    /// Unix socket writable again once at most a quarter of its send buffer is in use (af_unix.c,
    /// unix_writable), which is what wakes the waiting send.
    @Test func aFullBufferIsWaitedOutUntilThePeerDrainsIt() async throws {
        let (writer, peer) = try Self.pair()
        defer { _ = close(peer) }
        let sentBeforeFull = await Self.fill(writer)
        #expect(sentBeforeFull > 0)
        let drained = Mutex(0)
        Self.peer(after: .milliseconds(100)) {
            var buffer = [UInt8](repeating: 0, count: 512)
            while recv(peer, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 { drained.withLock { $0 += 1 } }
        }
        // A send that waits out its timeout throws timedOut, so success means the event woke it (the
        // long timeout leaves room for a test pool kept busy by other suites).
        try await writer.send([UInt8](repeating: 0x42, count: 244), timeout: .seconds(120))
        // Woken once at most a quarter of the buffer was still in use: the peer had read at least three quarters of
        // the equal packets (less one it read but had not counted yet); it may still be reading the rest.
        #expect(drained.withLock { $0 } >= sentBeforeFull * 3 / 4 - 1)
    }

    /// The synchronous send a burst of packets uses: it writes when the socket has room, says false (writing
    /// nothing) when the buffer is full, and a closed peer is the link gone.
    @Test func sendIfRoomWritesNowSaysFalseOnAFullBufferAndThrowsClosedOnceThePeerIsGone() async throws {
        let (writer, peer) = try Self.pair()
        #expect(try writer.sendIfRoom([0x01, 0x02, 0x03]))
        var buffer = [UInt8](repeating: 0, count: 512)
        #expect(recv(peer, &buffer, buffer.count, 0) == 3)
        #expect(Array(buffer[0..<3]) == [0x01, 0x02, 0x03])
        let sentBeforeFull = await Self.fill(writer)
        #expect(sentBeforeFull > 0)
        #expect(try writer.sendIfRoom([0x42]) == false)
        // Nothing of the refused packet is queued: the peer reads exactly the packets that filled the buffer.
        var read = 0
        while recv(peer, &buffer, buffer.count, Int32(MSG_DONTWAIT)) == 244 { read += 1 }
        #expect(read == sentBeforeFull)
        Self.hangUp(peer)
        #expect(throws: PacketWriter.Failure.closed) { _ = try writer.sendIfRoom([0x42]) }
    }

    @Test func aBufferThatStaysFullTimesOut() async throws {
        let (writer, peer) = try Self.pair()
        defer { _ = close(peer) }
        _ = await Self.fill(writer)
        let start = ContinuousClock.now
        await #expect(throws: PacketWriter.Failure.timedOut) {
            try await writer.send([UInt8](repeating: 0x42, count: 244), timeout: .milliseconds(200))
        }
        #expect(ContinuousClock.now - start >= .milliseconds(200))
    }

    @Test func thePeerClosingWhileASendWaitsEndsItAsClosed() async throws {
        let (writer, peer) = try Self.pair()
        _ = await Self.fill(writer)
        Self.peer(after: .milliseconds(100)) { Self.hangUp(peer) }
        await #expect(throws: PacketWriter.Failure.closed) {
            try await writer.send([UInt8](repeating: 0x42, count: 244), timeout: .seconds(120))
        }
    }

    @Test func closingTheWriterWhileASendWaitsEndsItAsClosed() async throws {
        let (writer, peer) = try Self.pair()
        defer { _ = close(peer) }
        _ = await Self.fill(writer)
        Self.peer(after: .milliseconds(100)) { writer.close() }
        await #expect(throws: PacketWriter.Failure.closed) {
            try await writer.send([UInt8](repeating: 0x42, count: 244), timeout: .seconds(120))
        }
    }

    /// A close from another task while sends go on: the number it frees is taken at once by a new socket pair (the
    /// lowest free number is reused), and no packet of the old writer may arrive there. A writer that read its
    /// number, then sent after the close, wrote into whatever reused it (a race of a few instructions: the loop
    /// gives it many chances).
    @Test func aWriterClosedWhileSendingNeverWritesToTheSocketThatReusedItsNumber() async throws {
        for _ in 0..<300 {
            let (writer, peer) = try Self.pair()
            defer { _ = close(peer) }
            // Sends until the writer is closed (a full buffer only times out at once), yielding its thread of the
            // shared pool between sends (a send that does not wait never suspends).
            let sender = Task.detached {
                while true {
                    do throws(PacketWriter.Failure) {
                        try await writer.send([0xEE], timeout: .zero)
                    } catch {
                        if error == .closed { return }
                    }
                    await Task.yield()
                }
            }
            try await Task.sleep(for: .microseconds(200))
            writer.close()
            var reused: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &reused) == 0)
            defer { _ = close(reused[0]); _ = close(reused[1]) }
            await sender.value
            var buffer = [UInt8](repeating: 0, count: 16)
            #expect(recv(reused[0], &buffer, buffer.count, Int32(MSG_DONTWAIT)) == -1)
            #expect(recv(reused[1], &buffer, buffer.count, Int32(MSG_DONTWAIT)) == -1)
        }
    }
}
