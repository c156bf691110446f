@testable import DFUCore
import DFUSimulator
import Synchronization
import Testing

/// The write path the runner hands every `.write` to: paced frames wait for a free receive buffer, others
/// go at once.
@Suite struct FlashPacedWriterTests {
    /// Records when each frame was written, on the virtual clock.
    final class RecordingTransport: DFUTransport {
        let clock: VirtualClock
        let writes = Mutex<[(at: Duration, bytes: [UInt8])]>([])

        init(clock: VirtualClock) { self.clock = clock }

        func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer { throw .deviceNotFound }
        func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {}
        func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
            let now = clock.elapsed
            writes.withLock { $0.append((now, bytes)) }
        }
        /// How many packets each `writePackets` call carried.
        let bursts = Mutex<[Int]>([])
        func writePackets(_ packets: [[UInt8]], to endpoint: DFUEndpoint) async throws(DFUTransportError) {
            bursts.withLock { $0.append(packets.count) }
            for packet in packets { try await write(packet, to: endpoint, type: .withoutResponse) }
        }
        func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { [] }
        func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification { throw .timedOut }
        func waitForDisconnection(within timeout: Duration) async -> Bool { true }
        func disconnect() async {}
    }

    /// Two receive buffers, one buffer per wake-up: the third packet must wait for the first one's flash write.
    static var twoBuffers: FlashPacing {
        var pacing = FlashPacing()
        pacing.receiveBuffers = 2
        pacing.buffersPerWake = 1
        return pacing
    }

    @Test func pacedPacketsWaitForAFreeBufferAndControlPointWritesDoNot() async throws {
        let clock = VirtualClock()
        let transport = RecordingTransport(clock: clock)
        var writer = FlashPacedWriter(transport: transport, clock: clock, pacing: Self.twoBuffers, slowdowns: 0)
        // The first Create of the connection: bank preparation 315 ms + page erase 85 ms keep the flash busy
        // until 400 ms.
        writer.note(.objectCreated)
        try await writer.write([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], to: .securePacket, type: .withoutResponse,
                               paced: true)
        // A Calculate Checksum request right after: not firmware, not held.
        try await writer.write([[0x03]], to: .secureControlPoint, type: .withResponse, paced: false)
        let times = transport.writes.withLock { $0.map(\.at) }
        // Packets 1 and 2 fill both buffers at once; packet 3 waits until packet 1's one-word write is done
        // after the erase: 400 ms + 41 µs. The request goes out then, without waiting.
        #expect(times == [.zero, .zero, .microseconds(400_041), .microseconds(400_041)])
    }

    @Test func withoutPacingEverythingGoesAtOnceAndHintsAreIgnored() async throws {
        let clock = VirtualClock()
        let transport = RecordingTransport(clock: clock)
        var writer = FlashPacedWriter(transport: transport, clock: clock, pacing: nil, slowdowns: 0)
        writer.note(.objectCreated)
        writer.note(.slower)
        try await writer.write([[1], [2], [3]], to: .securePacket, type: .withoutResponse, paced: true)
        #expect(transport.writes.withLock { $0.map(\.at) } == [.zero, .zero, .zero])
        #expect(writer.slowdowns == 0)
    }

    @Test func packetsGoInBurstsOfAsManyAsTheModelHasFreeBuffersFor() async throws {
        let clock = VirtualClock()
        let transport = RecordingTransport(clock: clock)
        var writer = FlashPacedWriter(transport: transport, clock: clock, pacing: Self.twoBuffers, slowdowns: 0)
        writer.note(.objectCreated)
        // Two buffers: packets 1–2 in one burst at once, then one at a time as each one-word write frees a buffer.
        try await writer.write([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]], to: .securePacket,
                               type: .withoutResponse, paced: true)
        #expect(transport.bursts.withLock { $0 } == [2, 1, 1])
        // A control point request is a single write with response, never a burst.
        try await writer.write([[0x03]], to: .secureControlPoint, type: .withResponse, paced: false)
        #expect(transport.bursts.withLock { $0 } == [2, 1, 1])
        #expect(transport.writes.withLock { $0.count } == 5)
    }

    @Test func unpacedPacketsCrossTheTransportInOneBurst() async throws {
        let clock = VirtualClock()
        let transport = RecordingTransport(clock: clock)
        var writer = FlashPacedWriter(transport: transport, clock: clock, pacing: nil, slowdowns: 0)
        try await writer.write([[1], [2], [3], [4], [5]], to: .securePacket, type: .withoutResponse, paced: true)
        #expect(transport.bursts.withLock { $0 } == [5])
        #expect(transport.writes.withLock { $0.map(\.bytes) } == [[1], [2], [3], [4], [5]])
    }

    @Test func eachSlowDownIsCountedAcrossConnections() {
        let clock = VirtualClock()
        var writer = FlashPacedWriter(transport: RecordingTransport(clock: clock), clock: clock, pacing: FlashPacing(),
                                      slowdowns: 2)
        writer.note(.slower)
        #expect(writer.slowdowns == 3)
    }
}
