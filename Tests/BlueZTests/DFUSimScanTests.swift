import BlueZ
import BlueZTransport
import DFUCore
import TestSupport
import Testing

/// `scan(for:)` (what `dfu scan` lists) against dfu-sim.
@Suite(.enabled(if: DFUSimServer.isAvailable, "needs dfu-sim built (swift build --build-tests)"), .timeLimit(.minutes(TestTime.limitMinutes(1))))
struct DFUSimScanTests {
    @Test func scanListsEveryAdvertisingDeviceWithNameRSSIAndServices() async throws {
        try await DFUSimServer.with([
            "--device", "secure,address=C0:FF:EE:00:13:00,name=BootOne,rssi=-40",
            "--device", "legacy,address=C0:FF:EE:00:22:00,rssi=-70",
        ]) { server in
            let transport = try await BlueZTransport.open(busAddress: server.address)
            // The window: how long the client listens for the stand-in's reports (20 ms after StartDiscovery),
            // stretched under the sanitizers like the suite's other timing bounds.
            let devices = try await transport.scan(for: TestTime.scaled(.milliseconds(800)))
            await transport.close()
            #expect(devices.map(\.address) == ["C0:FF:EE:00:13:00", "C0:FF:EE:00:22:00"], "strongest first")
            let secure = try #require(devices.first)
            #expect(secure.name == "BootOne")
            #expect(secure.rssi == -40)
            #expect(secure.serviceUUIDs.contains(BlueZUUID.canonical("fe59")))
            #expect(devices.last?.serviceUUIDs.contains(BlueZUUID.canonical("00001530-1212-efde-1523-785feabcd123")) == true)
        }
    }

    /// An nRF Connect SDK device advertises the SMP service (as Zephyr's `smp_svr` does), and a connection to it
    /// offers the SMP endpoint, which makes it an SMP server to the runner.
    @Test func anSMPServerAdvertisesTheSMPServiceAndOffersItsCharacteristic() async throws {
        try await DFUSimServer.with(["--device", "smp,address=C0:FF:EE:00:31:00"]) { server in
            let transport = try await BlueZTransport.open(busAddress: server.address)
            let heard = try await BlueZHost.scan(transport, for: TestTime.scaled(.milliseconds(500)))
            let device = try #require(heard.first)
            #expect(device.name == "Zephyr")
            #expect(device.serviceUUIDs.contains(DFUServiceUUIDs().smpService))
            let address = try #require(DFUDeviceAddress("C0:FF:EE:00:31:00"))
            let peer = try await transport.connect(DFUConnectParameters(
                selector: DFUDeviceSelector(addresses: [address], serviceUUIDs: [DFUServiceUUIDs().smpService]),
                scanTimeout: .seconds(3), connectTimeout: .seconds(3), uuids: DFUServiceUUIDs()))
            await transport.close()
            #expect(peer.endpoints == [.smp])
            #expect(peer.maximumWriteLength > 20, "the write length comes from the link's MTU")
        }
    }
    /// bluetoothd made its report within the window, but the client had not handled the signal when the window
    /// closed (`--fault late-announcement-ms`: the InterfacesAdded comes 10 s late, as in a process starved on a
    /// busy host): the device is listed all the same, from bluetoothd's own objects.
    @Test func aDeviceReportedInTheWindowIsListedThoughItsSignalIsHandledAfterIt() async throws {
        try await DFUSimServer.with([
            "--device", "secure,address=C0:FF:EE:00:13:00,name=BootOne,rssi=-40", "--fault", "late-announcement-ms=10000",
        ]) { server in
            let transport = try await BlueZTransport.open(busAddress: server.address)
            let devices = try await transport.scan(for: TestTime.scaled(.milliseconds(300)))
            await transport.close()
            #expect(devices.map(\.address) == ["C0:FF:EE:00:13:00"])
            #expect(devices.first?.name == "BootOne")
            #expect(devices.first?.rssi == -40)
        }
    }

    /// The same for a device named to connect to: when the scan timeout runs out before its signal was handled,
    /// bluetoothd's objects say it is there, and the connection goes ahead instead of "not found".
    @Test func aNamedDeviceReportedInTimeIsConnectedThoughItsSignalIsHandledAfterTheScanTimeout() async throws {
        try await DFUSimServer.with([
            "--device", "smp,address=C0:FF:EE:00:31:00", "--fault", "late-announcement-ms=10000",
        ]) { server in
            let transport = try await BlueZTransport.open(busAddress: server.address)
            let address = try #require(DFUDeviceAddress("C0:FF:EE:00:31:00"))
            let start = ContinuousClock.now
            let peer = try await transport.connect(DFUConnectParameters(
                selector: DFUDeviceSelector(addresses: [address], serviceUUIDs: [DFUServiceUUIDs().smpService]),
                scanTimeout: .seconds(1), connectTimeout: .seconds(3), uuids: DFUServiceUUIDs()))
            let waited = ContinuousClock.now - start
            await transport.close()
            #expect(peer.endpoints == [.smp])
            #expect(waited < .seconds(9), "found at the scan timeout, not when the late signal came")
        }
    }
}
