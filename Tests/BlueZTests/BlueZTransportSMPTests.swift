import BlueZ
import BlueZTransport
import DFUCore
import DFUSimStandIn
import DFUSimulator
import TestSupport
import Testing
import DFUFormats

/// SMP (MCUmgr) over BlueZTransport: DFURunner's SMP upload over a real dbus-daemon, against a simulated
/// nRF Connect SDK device (Zephyr's SMP server above MCUboot) behind bluetoothd's stand-in. WriteValue and
/// StartNotify are taken as `--no-acquire` takes them (the transport's acquiring switched off).
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(1)))) struct BlueZTransportSMPTests {
    /// The target's image 0 after the update: the new image in the primary slot, confirmed, after one reset.
    static func expectUpdated(_ rig: StandInRig, to image: [UInt8], _ comment: Comment? = nil) async throws {
        let target = try #require(try await rig.firmware as? SimulatedZephyrTarget)
        #expect(target.slots[0].primary == image, comment)
        #expect(target.slots[0].nextBoot == .none, "confirmed after the test boot")
        #expect(target.resets == 1)
    }

    @Test(arguments: [
        ("AcquireWrite + AcquireNotify", false, false),
        ("WriteValue command + AcquireNotify", true, false),
        ("AcquireWrite + StartNotify", false, true),
        ("WriteValue command + StartNotify", true, true),
    ])
    func anImageIsUploadedTestedSwappedAndConfirmed(path: String, writeValue: Bool, startNotify: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 30_000)
        try await LiveRig.withTransport(
            LiveRig.zephyrDevice(), configure: { await $0.setAcquiring(write: !writeValue, notify: !startNotify) }
        ) { rig, transport in
            let report = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            #expect(report.bytesSent == image.count)
            #expect(report.partsSent == [.application])
            try await Self.expectUpdated(rig, to: image, "\(path)")
            #expect(await rig.connections == 2, "one connection to upload, one after the swap to confirm")
        }
    }

    /// With the default ATT MTU (23) every answer longer than 20 bytes comes in several notifications,
    /// each read as its own packet; the machine joins them by the SMP header's length.
    @Test(arguments: [false, true])
    func answersSplitAcrossNotificationsReachTheMachineWhole(throughStartNotify: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 3_000)
        var options = StandInRig.Options()
        options.link.model.mtu = 23
        try await LiveRig.withTransport(
            LiveRig.zephyrDevice(), options: options, configure: { await $0.setAcquiring(write: true, notify: !throughStartNotify) }
        ) { rig, transport in
            let report = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try await Self.expectUpdated(rig, to: image)
            // Every request was answered (the machine needs each answer to go on); the answers took
            // more notifications than there were requests.
            #expect(await rig.observed.notificationsDelivered > 2 * report.bytesSent / 2475 + 10)
        }
    }

    @Test(arguments: [false, true])
    func theUploadResumesAfterTheLinkDrops(throughWriteValue: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 40_000)
        var options = StandInRig.Options()
        options.faults.link.disconnectAfterPacketBytes = 80 * 244  // 80 244-byte writes: about half of the image
        try await LiveRig.withTransport(
            LiveRig.zephyrDevice(), options: options, configure: { await $0.setAcquiring(write: !throughWriteValue, notify: true) }
        ) { rig, transport in
            let report = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try await Self.expectUpdated(rig, to: image)
            #expect(await rig.connections == 3, "the upload, its resumption, and the confirmation after the swap")
            // Resumed from the device's offset, not from the start: at most a window of chunks is sent again.
            #expect(report.bytesTransferred < image.count + 3 * 2475, "\(report.bytesTransferred)")
        }
    }

    @Test func theWriteLengthComesFromTheMTUAcquireWriteReportsWhenBlueZHasNoMTUProperty() async throws {
        var options = StandInRig.Options()
        options.link.model.mtu = 185
        options.host.version = .v5_55
        try await LiveRig.withTransport(LiveRig.zephyrDevice(), options: options) { _, transport in
            let peer = try await transport.connect(Self.connectParameters)
            #expect(peer.endpoints == [.smp])
            #expect(peer.maximumWriteLength == 182)
        }
    }

    @Test func theMTUPropertyGivesTheWriteLength() async throws {
        try await LiveRig.withTransport(LiveRig.zephyrDevice()) { _, transport in
            let peer = try await transport.connect(Self.connectParameters)
            #expect(peer.maximumWriteLength == 244)
        }
    }

    @Test func aScanListsTheSMPServiceAndAConnectionOffersTheSMPEndpoint() async throws {
        try await LiveRig.withTransport(LiveRig.zephyrDevice()) { _, transport in
            // The stand-in reports its devices 20 ms after StartDiscovery; the window is how long the client
            // listens for that report, stretched under the sanitizers like the suite's other timing bounds (seen:
            // make test-asan, the suite starved, the report came after an unscaled 300 ms window had closed).
            let heard = try await BlueZHost.scan(transport, for: TestTime.scaled(.milliseconds(300)))
            let device = try #require(heard.first { $0.address == LiveRig.address })
            #expect(device.serviceUUIDs == [DFUServiceUUIDs().smpService])
            #expect(device.name == "Zephyr")
            let peer = try await transport.connect(Self.connectParameters)
            #expect(peer.endpoints == [.smp])
        }
    }

    static let connectParameters = DFUConnectParameters(
        selector: .address(LiveRig.address), scanTimeout: .seconds(3), connectTimeout: .seconds(3), uuids: DFUServiceUUIDs())
}
