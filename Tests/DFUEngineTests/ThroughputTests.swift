import DFUCore
import DFUSimulator
import Testing
import DFUFormats

@Suite struct ThroughputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let phy: LinkModel.PHY
        let prn: UInt16
        var instantFlash = false
        var testDescription: String { "\(phy.rawValue), PRN \(prn)\(instantFlash ? ", flash not modelled" : "")" }
    }

    static let cases: [Case] = [false, true].flatMap { instant in
        [Case(phy: .le1M, prn: 0, instantFlash: instant), Case(phy: .le1M, prn: 12, instantFlash: instant),
         Case(phy: .le2M, prn: 0, instantFlash: instant), Case(phy: .le2M, prn: 12, instantFlash: instant)]
    }

    /// Run with `swift test --filter ThroughputTests` to print the modelled figures (lines starting MODEL).
    @Test(arguments: cases)
    func modelledUploadOf200KBApplication(_ testCase: Case) async throws {
        var link = LinkModel()
        link.phy = testCase.phy
        if testCase.instantFlash {
            link.flash.pageErase = .zero
            link.flash.wordWrite = .zero
            link.flash.firstObjectPreparation = .zero
        }
        let part = Fixtures.securePart(size: 200 * 1024)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport,
                                            options: Fixtures.options(prn: testCase.prn)).get()
        let installed = transport.peripheral().storage.application == part.image
        #expect(installed, "the installed application differs from the image sent")
        #expect(transport.violations.isEmpty)
        #expect(transport.packetsDroppedByTargets == 0, "flash pacing keeps every receive buffer free in time")
        let bound = SecureUploadBound(link: link, imageSize: part.image.count, initPacketSize: part.initPacket.count,
                                      prn: Int(testCase.prn))
        // Nothing beats the model's own lower bound; the engine stays within 2x of it unless it fell back.
        #expect(report.elapsed >= bound.total)
        if !report.fellBackToPRN1 { #expect(report.elapsed < bound.total * 2) }
        let seconds = report.elapsed.dfuSecondsValue
        let boundSeconds = bound.total.dfuSecondsValue
        if report.fellBackToPRN1 {
            // The same upload when the fallback after a loss is PRN 4 instead of 1.
            let again = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
            var options = Fixtures.options(prn: testCase.prn)
            options.packetReceiptNotificationsAfterLoss = 4
            let gentler = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: again, options: options).get()
            let installed = again.peripheral().storage.application == part.image
            #expect(installed)
            print("MODEL 200 KiB app, \(testCase.testDescription), fallback PRN 4: \(gentler.elapsed) = \(Int(gentler.throughput)) B/s")
        }
        print("MODEL 200 KiB app, \(testCase.testDescription): \(report.elapsed) = \(Int(report.throughput)) B/s"
            + " (bound \(bound), \(Int(Double(part.image.count) / boundSeconds)) B/s; efficiency \(Int(100 * boundSeconds / seconds)) %)"
            + (report.fellBackToPRN1 ? "; packets were lost to a full receive queue and the engine fell back to PRN 1" : ""))
    }
}
