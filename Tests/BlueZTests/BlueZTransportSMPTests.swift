import BlueZ
import BlueZTransport
import DFUCore
import DFUSimulator
import TestSupport
import Testing
import DFUFormats

/// SMP (MCUmgr) over BlueZTransport: DFURunner's SMP upload over a real dbus-daemon, against a simulated
/// nRF Connect SDK device (Zephyr's SMP server above MCUboot) behind the small org.bluez of ``FakeBlueZ``.
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(1)))) struct BlueZTransportSMPTests {
    /// The target's image 0 after the update: the new image in the primary slot, confirmed, after one reset.
    static func expectUpdated(_ fake: FakeBlueZ, to image: [UInt8], _ comment: Comment? = nil) throws {
        let target = try #require(fake.firmware as? SimulatedZephyrTarget)
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
    func anImageIsUploadedTestedSwappedAndConfirmed(path: String, refuseWrite: Bool, refuseNotify: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 30_000)
        var options = FakeBlueZ.Options()
        options.refuseAcquireWrite = refuseWrite
        options.refuseAcquireNotify = refuseNotify
        try await LiveRig.withTransport(LiveRig.zephyrDevice(), options: options) { fake, transport in
            let report = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            #expect(report.bytesSent == image.count)
            #expect(report.partsSent == [.application])
            try Self.expectUpdated(fake, to: image, "\(path)")
            #expect(fake.connections == 2, "one connection to upload, one after the swap to confirm")
        }
    }

    /// With the default ATT MTU (23) every answer longer than 20 bytes comes in several notifications,
    /// each read as its own packet; the machine joins them by the SMP header's length.
    @Test(arguments: [false, true])
    func answersSplitAcrossNotificationsReachTheMachineWhole(throughStartNotify: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 3_000)
        var options = FakeBlueZ.Options()
        options.mtu = 23
        options.refuseAcquireNotify = throughStartNotify
        try await LiveRig.withTransport(LiveRig.zephyrDevice(), options: options) { fake, transport in
            let report = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try Self.expectUpdated(fake, to: image)
            // Every request was answered (the machine needs each answer to go on); the answers took
            // more notifications than there were requests.
            #expect(fake.notificationsSent > 2 * report.bytesSent / 2475 + 10)
        }
    }

    @Test(arguments: [false, true])
    func theUploadResumesAfterTheLinkDrops(throughWriteValue: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 40_000)
        var options = FakeBlueZ.Options()
        options.refuseAcquireWrite = throughWriteValue
        options.dropLinkAfterPackets = 80  // 244-byte writes: about half of the image
        try await LiveRig.withTransport(LiveRig.zephyrDevice(), options: options) { fake, transport in
            let report = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try Self.expectUpdated(fake, to: image)
            #expect(fake.connections == 3, "the upload, its resumption, and the confirmation after the swap")
            // Resumed from the device's offset, not from the start: at most a window of chunks is sent again.
            #expect(report.bytesTransferred < image.count + 3 * 2475, "\(report.bytesTransferred)")
        }
    }

    @Test func theWriteLengthComesFromTheMTUAcquireWriteReportsWhenBlueZHasNoMTUProperty() async throws {
        var options = FakeBlueZ.Options()
        options.mtu = 185
        options.exportsMTU = false
        try await LiveRig.withTransport(LiveRig.zephyrDevice(), options: options) { fake, transport in
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
            let heard = try await BlueZHost.scan(transport, for: .milliseconds(300))
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
