import DFUCore
import DFUSimulator
import Testing
import DFUFormats

/// The engine's flash pacing on links faster than the simulated nRF52 flash: no packet is lost,
/// and the modelled time stays within a few percent of the model's lower bound.
@Suite struct FlashPacingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let phy: LinkModel.PHY
        let intervalMicroseconds: Int
        let mtu: Int
        let prn: UInt16
        var testDescription: String { "\(phy.rawValue), \(intervalMicroseconds) µs, MTU \(mtu), PRN \(prn)" }

        var link: LinkModel {
            var link = LinkModel()
            link.phy = phy
            link.connectionInterval = .microseconds(intervalMicroseconds)
            link.mtu = mtu
            return link
        }
    }

    static let cases = [
        Case(phy: .le2M, intervalMicroseconds: 15000, mtu: 247, prn: 0),
        Case(phy: .le2M, intervalMicroseconds: 7500, mtu: 247, prn: 12),
        Case(phy: .le1M, intervalMicroseconds: 7500, mtu: 247, prn: 0),
        Case(phy: .le1M, intervalMicroseconds: 7500, mtu: 23, prn: 0),
        Case(phy: .le2M, intervalMicroseconds: 15000, mtu: 23, prn: 12),
    ]

    static func upload(_ testCase: Case, options: DFUOptions) async throws -> (DFUUpdateReport, SimulatedTransport, FirmwarePart) {
        let part = Fixtures.securePart(size: 40_000)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: testCase.link)
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport, options: options).get()
        return (report, transport, part)
    }

    @Test(arguments: cases)
    func pacedUploadLosesNoPacketAndSitsNearTheBound(_ testCase: Case) async throws {
        let (report, transport, part) = try await Self.upload(testCase, options: Fixtures.options(prn: testCase.prn))
        #expect(transport.peripheral().storage.application == part.image)
        #expect(transport.packetsDroppedByTargets == 0)
        #expect(!report.fellBackToPRN1)
        let bound = SecureUploadBound(link: testCase.link, imageSize: part.image.count,
                                      initPacketSize: part.initPacket.count, prn: Int(testCase.prn))
        #expect(report.elapsed >= bound.total, "the bound \(bound) is above an actual upload")
        #expect(bound.total.dfuSecondsValue / report.elapsed.dfuSecondsValue > 0.9, "\(report.elapsed) vs \(bound)")
    }

    /// What a real SDK 15–17 bootloader needs after a Create: 20-byte packets sent at once fill the 17 receive
    /// buffers during the page erase and are dropped (`nrf_dfu_ble.c` `on_write`); pacing waits for the erase.
    @Test func withoutPacingSmallPacketsOverrunTheBuffersDuringThePageErase() async throws {
        let testCase = Self.cases[3]
        let (report, transport, part) = try await Self.upload(testCase, options: Fixtures.options(prn: 0) { $0.flashPacing = nil })
        #expect(transport.peripheral().storage.application == part.image)
        #expect(transport.packetsDroppedByTargets > 0)
        #expect(report.fellBackToPRN1)
    }

    /// With full packets an object (17 × 244 bytes) never needs more than the 17 buffers, and the bootloader
    /// answers each Execute only when its flash work is done (`on_data_obj_execute_request_sched`): nothing is
    /// lost without pacing either.
    @Test func withoutPacingFullPacketsLoseNothingAsTheExecuteWaitsForTheFlash() async throws {
        let testCase = Self.cases[0]
        let (report, transport, part) = try await Self.upload(testCase, options: Fixtures.options(prn: 0) { $0.flashPacing = nil })
        #expect(transport.peripheral().storage.application == part.image)
        #expect(transport.packetsDroppedByTargets == 0)
        #expect(!report.fellBackToPRN1)
    }

    struct SlowFlashCase: CustomTestStringConvertible, Sendable {
        /// How many times slower than the datasheet maxima the simulated flash is.
        let factor: Int
        /// The ATT MTU.
        let mtu: Int
        var testDescription: String { "flash \(factor)x slower than assumed, MTU \(mtu)" }
    }

    /// A device whose flash is slower than the pacer assumes: the update must still succeed while the device
    /// answers. With full packets nothing is lost at all (the Execute waits for the flash); with 20-byte packets
    /// the erase stalls are longer than assumed, packets are lost, and the pacer slows down (then PRN 1).
    @Test(arguments: [2, 3, 8].flatMap { factor in [247, 23].map { SlowFlashCase(factor: factor, mtu: $0) } })
    func aSlowerFlashNeverMakesTheUpdateFail(_ testCase: SlowFlashCase) async throws {
        var link = Self.cases[0].link
        link.mtu = testCase.mtu
        link.flash.wordWrite = .microseconds(41 * testCase.factor)
        link.flash.pageErase = .milliseconds(85 * testCase.factor)
        link.flash.firstObjectPreparation = .milliseconds(300 * testCase.factor)
        let part = Fixtures.securePart(size: testCase.mtu == 23 ? 30_000 : 100_000)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport,
                                            options: Fixtures.options(prn: 0)).get()
        #expect(transport.peripheral().storage.application == part.image)
        if testCase.mtu == 247 {
            #expect(transport.packetsDroppedByTargets == 0)
            #expect(!report.fellBackToPRN1)
        }
        // Never slower than the flash alone plus every packet with its own receipt (PRN 1, a request's two
        // connection events each) and the waits and repeats of the losses.
        let flashAlone = link.flash.pageErase * ((part.image.count + 4095) / 4096) + link.flash.writeTime(bytes: part.image.count)
        let packets = (part.image.count + link.mtu - 4) / (link.mtu - 3)
        let bound = flashAlone + link.connectionInterval * 2 * packets + .seconds(15)
        #expect(report.elapsed < bound, "\(report.elapsed) against \(flashAlone) of flash work")
    }

    @Test func theBoundCountsEraseStallsOnlyWhenAnObjectHasMorePacketsThanBuffers() {
        var link = LinkModel()
        let large = SecureUploadBound(link: link, imageSize: 40_960, initPacketSize: 140, prn: 0)
        #expect(large.eraseStalls == .zero)
        link.mtu = 23
        let small = SecureUploadBound(link: link, imageSize: 40_960, initPacketSize: 140, prn: 0)
        #expect(small.eraseStalls > .zero)
        #expect(small.link == small.setup + small.air + small.roundTrips + small.eraseStalls + small.executeWaits)
        #expect(small.total == max(small.link, small.flashStart + small.flash) + small.finish)
    }

    /// SDK 15–17 answer an Execute only when the object's erase and writes are done: on 2M PHY at 15 ms an
    /// object's 17 packets and its three requests take less link time than its flash work, so the link waits.
    @Test func theBoundWaitsForEachObjectsFlashWorkBeforeTheNextCreate() {
        var link = LinkModel()
        link.phy = .le2M
        let bound = SecureUploadBound(link: link, imageSize: 40_960, initPacketSize: 140, prn: 0)
        #expect(bound.executeWaits > .zero)
        // Ten objects, each at least its erase and its 1024 word writes before the next Create.
        let perObject = link.flash.pageErase + link.flash.writeTime(bytes: 4096)
        #expect(bound.link >= bound.setup + perObject * 10)
    }

    /// One 4096-byte object at MTU 23 on 2M PHY, 7.5 ms: a 20-byte packet's exchange takes 496 µs, so 12 fit in
    /// the 6.25 ms of an event (the fluid 12.6 would undercount the events).
    @Test func theBoundPacksWholePacketsIntoEventsAndStartsTheLatePacketsAtAnEvent() {
        var link = LinkModel()
        link.mtu = 23
        link.phy = .le2M
        link.connectionInterval = .microseconds(7500)
        let bound = SecureUploadBound(link: link, imageSize: 4096, initPacketSize: 140, prn: 0)
        // Init packet: 7 packets, one event (0 intervals). Object: 204 full packets fill 17 events, the 16-byte
        // last one an 18th: 17 intervals.
        #expect(bound.air == .microseconds(17 * 7500))
        // The Create's exchange (6 bytes, 440 µs), bank preparation and erase (385 ms) and the first buffer's write
        // (205 µs), less the late packet's exchange (496 µs): 385.149 ms, so the late packets start at the 52nd
        // event (390 ms). 187 full packets and the last one take 16 events (15 intervals), then Checksum and
        // Execute (4 intervals): 532.5 ms against the link's 6 intervals and 17 of air (172.5 ms).
        #expect(bound.eraseStalls == .microseconds(532_500 - 172_500))
    }
}
