@testable import BlueZTransport
import BlueZ
import Glibc
import IOLoop
import Synchronization
import Testing

/// The AcquireNotify reader on a SOCK_SEQPACKET socket pair: the test writes BlueZ's end.
@Suite struct NotificationReaderTests {
    /// Collects what the reader delivers; `waitFor` polls with short real sleeps (the reader runs on the event loop's thread).
    final class Collected: Sendable {
        let packets = Mutex<[[UInt8]]>([])
        let hangUps = Mutex(0)

        /// A reader on `descriptor` that delivers into this collection.
        func reader(on descriptor: BlueZSocket, maximumLength: Int = 23) throws -> NotificationReader {
            try NotificationReader(
                descriptor: descriptor, loop: EventLoop.shared(), maximumLength: maximumLength,
                onPacket: { bytes in self.packets.withLock { $0.append(bytes) } },
                onHangUp: { self.hangUps.withLock { $0 += 1 } })
        }

        func waitFor(packets count: Int, hangUps expected: Int = 0) async throws {
            for _ in 0..<500 {
                if self.packets.withLock({ $0.count }) >= count, hangUps.withLock({ $0 }) >= expected { return }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    /// BlueZ's end (raw, closed by the test) and the reader's end.
    static func pair() throws -> (peer: Int32, reader: BlueZSocket) {
        var ends: [Int32] = [-1, -1]
        let made = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends)
        try #require(made == 0)
        return (ends[0], BlueZSocket(taking: ends[1]))
    }

    static func send(_ bytes: [UInt8], to descriptor: Int32) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    @Test func deliversEachPacketWholeAndInOrder() async throws {
        let (peer, descriptor) = try Self.pair()
        defer { _ = close(peer) }
        let collected = Collected()
        let reader = try collected.reader(on: descriptor)
        defer { reader.stop() }
        Self.send([0x60, 0x01, 0x01], to: peer)  // response, Create, success
        Self.send([0x60, 0x03, 0x01, 0x00, 0x10, 0x00, 0x00], to: peer)  // Checksum response: op code, success, offset 4096 (CRC left out)
        try await collected.waitFor(packets: 2)
        #expect(collected.packets.withLock { $0 } == [[0x60, 0x01, 0x01], [0x60, 0x03, 0x01, 0x00, 0x10, 0x00, 0x00]])
        #expect(collected.hangUps.withLock { $0 } == 0)
    }

    @Test func bluezClosingItsEndIsOneHangUpAfterThePacketsBeforeIt() async throws {
        let (peer, descriptor) = try Self.pair()
        let collected = Collected()
        let reader = try collected.reader(on: descriptor)
        defer { reader.stop() }
        Self.send([0x60, 0x04, 0x01], to: peer)  // Execute response
        _ = close(peer)
        try await collected.waitFor(packets: 1, hangUps: 1)
        #expect(collected.packets.withLock { $0 } == [[0x60, 0x04, 0x01]])
        try await Task.sleep(for: .milliseconds(20))
        #expect(collected.hangUps.withLock { $0 } == 1)
    }

    /// BlueZ closed its end before the reader started: the loop may report the hang-up before the reader has kept
    /// its watch. Still one hang-up, and the reader's end closed without a stop (its number is then free, or is
    /// another file's).
    @Test func aSocketClosedBeforeTheReaderStartedIsOneHangUpAndIsClosed() async throws {
        for _ in 0..<50 {
            let (peer, descriptor) = try Self.pair()
            _ = close(peer)
            let number = try #require(descriptor.rawValue)
            var before = stat()
            try #require(fstat(number, &before) == 0)
            let collected = Collected()
            let reader = try collected.reader(on: descriptor)
            try await collected.waitFor(packets: 0, hangUps: 1)
            var closed = false
            for _ in 0..<500 where !closed {
                var now = stat()
                closed = fstat(number, &now) != 0 || now.st_ino != before.st_ino
                if !closed { try await Task.sleep(for: .milliseconds(2)) }
            }
            #expect(closed, "the reader's end is still open")
            #expect(collected.hangUps.withLock { $0 } == 1)
            reader.stop()
        }
    }

    @Test func stopClosesTheDescriptorAndDeliversNothingMore() async throws {
        let (peer, descriptor) = try Self.pair()
        defer { _ = close(peer) }
        let collected = Collected()
        let reader = try collected.reader(on: descriptor)
        reader.stop()
        // The loop closes the reader's end: BlueZ's end then reads end-of-file.
        var closed = false
        for _ in 0..<500 where !closed {
            var byte: UInt8 = 0
            closed = recv(peer, &byte, 1, Int32(MSG_DONTWAIT)) == 0
            if !closed { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(closed)
        Self.send([0x60, 0x01, 0x01], to: peer)
        reader.flush()
        #expect(collected.packets.withLock { $0 }.isEmpty)
        #expect(collected.hangUps.withLock { $0 } == 0)
    }

    @Test func flushDeliversWhatIsAlreadyQueued() async throws {
        let (peer, descriptor) = try Self.pair()
        defer { _ = close(peer) }
        let collected = Collected()
        let reader = try collected.reader(on: descriptor)
        defer { reader.stop() }
        Self.send([0x60, 0x01, 0x01], to: peer)
        // Whether the loop or the flush reads it, it is delivered exactly once by the time flush returns
        // (the flush takes the same lock as the loop's reads).
        reader.flush()
        #expect(collected.packets.withLock { $0 } == [[0x60, 0x01, 0x01]])
        try await Task.sleep(for: .milliseconds(10))
        #expect(collected.packets.withLock { $0 } == [[0x60, 0x01, 0x01]])  // not twice
    }
}
