import BlueZTransport
import DFUCore
import DFUFormats
import DFUSimStandIn
import DFUSimulator
import Testing

/// What `dfu`'s transport does about a bluetoothd release that differs where it matters (docs/conformance-bluez.md).
@Suite struct BlueZTransportOldAndNewBluetoothdTests {
    /// bluetoothd 5.87 dies when an advertisement matches a discovery filter's UUIDs (`is_filter_match`, fixed by
    /// 82af2beaf after 5.87): the transport gives it no UUIDs and keeps the matching itself, so a buttonless jump, whose
    /// bootloader is looked for by its service, goes through.
    @Test func onBluetoothd587TheBootloaderIsFoundWithoutAUUIDFilter() async throws {
        var options = StandInRig.Options()
        options.host.version = .v5_87
        let package = LiveRig.securePackage()
        try await LiveRig.withTransport(LiveRig.secureDevice(buttonless: .withoutBonds), options: options) { rig, transport in
            let report = try await LiveRig.update(package, over: transport, device: .address(LiveRig.address)).get()
            #expect(report.partsSent == [.application])
            #expect(try await rig.storage.application == package.parts.first?.image)
        }
    }
}
