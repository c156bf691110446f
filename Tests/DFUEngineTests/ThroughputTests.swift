import DFUCore
import DFUSimulator
import Testing

@Suite struct ThroughputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let phy: LinkModel.PHY
        let prn: UInt16
        var testDescription: String { "\(phy.rawValue), PRN \(prn)" }
    }

    @Test(arguments: [Case(phy: .le1M, prn: 0), Case(phy: .le1M, prn: 12), Case(phy: .le2M, prn: 0), Case(phy: .le2M, prn: 12)])
    func modelledUploadOf200KBApplication(_ testCase: Case) async throws {
        var link = LinkModel()
        link.phy = testCase.phy
        let part = Fixtures.securePart(size: 200 * 1024)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport,
                                            options: Fixtures.options(prn: testCase.prn)).get()
        let installed = transport.peripheral().storage.application == part.image
        #expect(installed, "the installed application differs from the image sent")
        #expect(transport.violations.isEmpty)
        let bound = SecureUploadBound(link: link, imageSize: part.image.count, initPacketSize: part.initPacket.count,
                                      prn: Int(testCase.prn))
        // Nothing beats the model's own lower bound; the engine stays within 2x of it unless it fell back to PRN 1.
        #expect(report.elapsed >= bound.total)
        if !report.fellBackToPRN1 { #expect(report.elapsed < bound.total * 2) }
        let seconds = report.elapsed.dfuSecondsValue
        let boundSeconds = bound.total.dfuSecondsValue
        print("MODEL 200 KiB app, \(testCase.testDescription): \(report.elapsed) = \(Int(report.throughput)) B/s"
            + " (bound \(bound), \(Int(Double(part.image.count) / boundSeconds)) B/s; efficiency \(Int(100 * boundSeconds / seconds)) %)"
            + (report.fellBackToPRN1 ? "; packets were lost to a full receive queue and the engine fell back to PRN 1" : ""))
    }
}
