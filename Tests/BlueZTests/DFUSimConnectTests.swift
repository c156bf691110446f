import BlueZTransport
import DFUCore
import TestSupport
import Testing

/// Connecting through dfu-sim when bluetoothd is already connecting to the device.
@Suite(.enabled(if: DFUSimServer.isAvailable, "needs dfu-sim built (swift build --build-tests)"), .timeLimit(.minutes(TestTime.limitMinutes(1))))
struct DFUSimConnectTests {
    static let address = DFUDeviceAddress("C0:FF:EE:00:41:00")

    static func parameters() throws -> DFUConnectParameters {
        let address = try #require(Self.address)
        return DFUConnectParameters(
            selector: DFUDeviceSelector(addresses: [address], serviceUUIDs: []),
            scanTimeout: .seconds(3), connectTimeout: .seconds(5), uuids: DFUServiceUUIDs())
    }

    /// bluetoothd 5.66 answers a Connect while a connection attempt to the device is under way with
    /// `Failed "Operation already in progress"` (`dev_connect`, `device_connect_le`'s -EALREADY): the transport
    /// waits for that connection instead of failing the update. Seen in the VM suite after a reset, when
    /// bluetoothd still held the link that was going down.
    @Test func aConnectWhileAnotherIsUnderWayWaitsForThatConnection() async throws {
        try await DFUSimServer.with(["--device", "secure,address=C0:FF:EE:00:41:00,connect_delay_ms=600"]) { server in
            let first = try await BlueZTransport.open(busAddress: server.address)
            let second = try await BlueZTransport.open(busAddress: server.address)
            let parameters = try Self.parameters()
            let pending = Task { try await first.connect(parameters) }
            // The first Connect is under way (the device takes 600 ms to answer) when the second one comes.
            try await Task.sleep(for: .milliseconds(200))
            let peer = try await second.connect(parameters)
            let firstPeer = try await pending.value
            await second.close()
            await first.close()
            #expect(peer.address == Self.address)
            #expect(firstPeer.endpoints == peer.endpoints)
            #expect(peer.endpoints.contains(.secureControlPoint))
        }
    }
}
