import DFUCore
import DFUSimulator
import Testing

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

    @Test func withoutPacingTheSameLinkOverrunsTheReceiveBuffers() async throws {
        let testCase = Self.cases[0]
        let (report, transport, part) = try await Self.upload(testCase, options: Fixtures.options(prn: 0) { $0.flashPacing = nil })
        #expect(transport.peripheral().storage.application == part.image)
        #expect(transport.packetsDroppedByTargets > 0)
        #expect(report.fellBackToPRN1)
    }

    struct SlowFlashCase: CustomTestStringConvertible, Sendable {
        /// How many times slower than the datasheet maxima the simulated flash is.
        let factor: Int
        /// Whether the PRN may still fall back to 1.
        let fallsBack: Bool
        var testDescription: String { "flash \(factor)x slower than assumed" }
    }

    /// A device whose flash is slower than the pacer assumes loses packets once; the pacer then assumes
    /// twice the times, and only a second loss lowers the PRN.
    @Test(arguments: [SlowFlashCase(factor: 2, fallsBack: false), SlowFlashCase(factor: 3, fallsBack: true),
                      SlowFlashCase(factor: 8, fallsBack: true)])
    func aSlowerFlashSlowsThePacerDownBeforeThePRNFallsBack(_ testCase: SlowFlashCase) async throws {
        var link = Self.cases[0].link
        link.flash.wordWrite = .microseconds(41 * testCase.factor)
        link.flash.pageErase = .milliseconds(85 * testCase.factor)
        let part = Fixtures.securePart(size: 100_000)
        func upload(pacing: Bool) async throws -> (DFUUpdateReport, SimulatedTransport) {
            let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
            let options = Fixtures.options(prn: 0) { if !pacing { $0.flashPacing = nil } }
            let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport, options: options).get()
            #expect(transport.peripheral().storage.application == part.image)
            return (report, transport)
        }
        let (paced, transport) = try await upload(pacing: true)
        let (unpaced, _) = try await upload(pacing: false)
        #expect(transport.packetsDroppedByTargets > 0)
        #expect(paced.fellBackToPRN1 == testCase.fallsBack)
        // Never more than 20 % slower than the engine without pacing (which falls back to PRN 1 at the first loss).
        #expect(paced.elapsed < unpaced.elapsed * 1.2, "\(paced.elapsed) vs \(unpaced.elapsed) without pacing")
        if !testCase.fallsBack {
            #expect(paced.elapsed * 2 < unpaced.elapsed, "\(paced.elapsed) vs \(unpaced.elapsed) without pacing")
        }
    }

    @Test func theBoundCountsEraseStallsOnlyWhenAnObjectHasMorePacketsThanBuffers() {
        var link = LinkModel()
        let large = SecureUploadBound(link: link, imageSize: 40_960, initPacketSize: 140, prn: 0)
        #expect(large.eraseStalls == .zero)
        link.mtu = 23
        let small = SecureUploadBound(link: link, imageSize: 40_960, initPacketSize: 140, prn: 0)
        #expect(small.eraseStalls > .zero)
        #expect(small.link == small.setup + small.air + small.roundTrips + small.eraseStalls)
        #expect(small.total == max(small.link, small.flashStart + small.flash) + small.finish)
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
