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
        print("MODEL \(testCase.testDescription): \(report.elapsed) \(Int(report.throughput)) B/s fallback=\(report.fellBackToPRN1) reconnects=\(report.reconnections)")
    }
}
