import DFUCore
import DFUSimulator
import Testing
import DFUFormats

/// The simulator must fail loudly when a client breaks the protocol: these drive it by hand, badly.
@Suite struct SimulatorInvariantTests {
    static func connected(_ device: SimulatedPeripheral, link: LinkModel = LinkModel()) async throws -> SimulatedTransport {
        let transport = SimulatedTransport(peripherals: [device], link: link)
        _ = try await transport.connect(DFUConnectParameters(
            selector: .address(device.address), scanTimeout: .seconds(1), connectTimeout: .seconds(1), uuids: DFUServiceUUIDs()))
        return transport
    }

    static func request(_ transport: SimulatedTransport, _ request: SecureDFURequest) async throws -> [UInt8] {
        try await transport.write(request.bytes, to: .secureControlPoint, type: .withResponse)
        return try await transport.nextNotification(within: .seconds(1)).bytes
    }

    @Test func executingAnObjectWhoseChecksumWasNotRequestedIsRecorded() async throws {
        let transport = try await Self.connected(Fixtures.secureDevice())
        try await transport.enableNotifications(on: .secureControlPoint)
        let part = Fixtures.securePart(size: 100)
        _ = try await Self.request(transport, .create(.command, size: UInt32(part.initPacket.count)))
        try await transport.write(part.initPacket, to: .securePacket, type: .withoutResponse)
        // No Calculate Checksum before Execute.
        #expect(try await Self.request(transport, .execute) == [0x60, 0x04, 0x01])
        #expect(transport.violations == ["executed the command object without verifying its checksum first"])
    }

    @Test func writingPastTheAnnouncedObjectSizeIsRecorded() async throws {
        let transport = try await Self.connected(Fixtures.secureDevice())
        try await transport.enableNotifications(on: .secureControlPoint)
        _ = try await Self.request(transport, .create(.command, size: 4))
        try await transport.write([1, 2, 3, 4, 5], to: .securePacket, type: .withoutResponse)
        #expect(transport.violations == ["wrote 5 bytes into a command object created with 4"])
    }

    @Test func legacyPacketLongerThanTwentyBytesIsRecorded() async throws {
        let transport = try await Self.connected(Fixtures.legacyDevice())
        try await transport.write(Array(repeating: 0, count: 21), to: .legacyPacket, type: .withoutResponse)
        #expect(transport.violations == ["legacy packet of 21 bytes (the bootloader takes at most 20)"])
    }

    /// SDK 15–17 `nrf_dfu_ble.c` `on_write`: a packet that finds no free receive buffer (`nrf_balloc_alloc`
    /// fails) is dropped without a word. 20-byte packets sent straight after a Create fill the 17 buffers
    /// long before the page erase the Create queued is over.
    @Test func outrunningThePageEraseSilentlyDropsWrites() async throws {
        var link = LinkModel()
        link.mtu = 23
        link.connectionInterval = .microseconds(7500)
        let transport = try await Self.connected(Fixtures.secureDevice(), link: link)
        try await transport.enableNotifications(on: .secureControlPoint)
        let part = Fixtures.securePart(size: 8_192)
        _ = try await Self.request(transport, .create(.command, size: UInt32(part.initPacket.count)))
        for offset in stride(from: 0, to: part.initPacket.count, by: 20) {
            let packet = Array(part.initPacket[offset..<min(part.initPacket.count, offset + 20)])
            try await transport.write(packet, to: .securePacket, type: .withoutResponse)
        }
        _ = try await Self.request(transport, .calculateChecksum)
        _ = try await Self.request(transport, .execute)
        _ = try await Self.request(transport, .create(.data, size: 4096))
        for offset in stride(from: 0, to: 4096, by: 20) {
            try await transport.write(Array(part.image[offset..<min(4096, offset + 20)]), to: .securePacket, type: .withoutResponse)
        }
        let answer = try await Self.request(transport, .calculateChecksum)
        let reported = answer.suffix(8).prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(reported < 4096)
        #expect(transport.packetsDroppedByTargets > 0)
        #expect(transport.violations.isEmpty)
    }

    @Test func failedConnectionsAreRetried() async throws {
        // The default: `--retries` 3, so 4 Connect calls.
        let attempts = DFUOptions().connectionAttempts
        var faults = SimulatedFaults()
        faults.failedConnections = attempts - 1
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], faults: faults)
        _ = try await Fixtures.run(DFUPackage(format: .secure, parts: [Fixtures.securePart(size: 2_000)]), on: transport).get()
        var failing = SimulatedFaults()
        failing.failedConnections = attempts
        let again = SimulatedTransport(peripherals: [Fixtures.secureDevice()], faults: failing)
        guard case .failure(.transport(.connecting, .failed)) = await Fixtures.run(
            DFUPackage(format: .secure, parts: [Fixtures.securePart(size: 2_000)]), on: again) else {
            Issue.record("\(attempts) failed attempts must fail")
            return
        }
    }
}
