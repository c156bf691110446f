import DBus
import Glibc
import Testing

@testable import BlueZTransport

/// The AcquireWrite socket as dfu sees it: a SOCK_SEQPACKET pair stands in for dfu's end and
/// bluetoothd's.
@Suite struct PacketWriterTests {
    /// A writer on one end of a fresh pair, and the other end's descriptor (the test closes it).
    static func pair() throws -> (PacketWriter, Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        return (PacketWriter(descriptor: OwnedFileDescriptor(taking: ends[0]), mtu: 247), ends[1])
    }

    @Test func unreadBytesCountWhatThePeerHasNotReadYet() throws {
        let (writer, peer) = try Self.pair()
        defer { _ = close(peer) }
        #expect(writer.unreadBytes() == 0)
        try writer.send([UInt8](repeating: 0xA5, count: 244), timeout: .seconds(1))
        try writer.send([UInt8](repeating: 0x5A, count: 100), timeout: .seconds(1))
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
}
