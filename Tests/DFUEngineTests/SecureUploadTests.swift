import DFUCore
import DFUSimulator
import Testing
import DFUFormats

@Suite struct SecureUploadTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let prn: UInt16
        let size: Int
        var testDescription: String { "PRN \(prn), \(size) bytes" }
    }

    @Test(arguments: [
        Case(prn: 12, size: 20_000), Case(prn: 0, size: 20_000), Case(prn: 1, size: 5_000),
        Case(prn: 12, size: 4096 * 3), Case(prn: 5, size: 1), Case(prn: 12, size: 4096 * 2 + 244),
    ])
    func uploadsApplicationByteExact(_ testCase: Case) async throws {
        let part = Fixtures.securePart(size: testCase.size)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport,
                                        options: Fixtures.options(prn: testCase.prn))
        let report = try result.get()
        #expect(report.partsSent == [.application])
        let installed = transport.peripheral().storage.application == part.image
        #expect(installed, "the installed application differs from the image sent")
        #expect(transport.violations.isEmpty)
    }
}
