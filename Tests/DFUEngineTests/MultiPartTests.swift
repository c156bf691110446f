import DFUCore
import DFUSimulator
import Testing
import DFUFormats

@Suite struct MultiPartTests {
    /// SoftDevice+bootloader (bootloader v2, requires the installed SD 0x0100; installs SD 0x0123), then the app.
    static func package(blVersion: UInt32 = 2) -> DFUPackage {
        let system = Fixtures.securePart(.softdeviceBootloader, size: 30_000, seed: 3, firmwareVersion: blVersion,
                                         softdeviceRequirements: [0x0100], softdeviceSize: 20_000)
        let app = Fixtures.securePart(.application, size: 9_000, seed: 4, softdeviceRequirements: [0x0123])
        return DFUPackage(format: .secure, parts: [app, system])
    }

    static func device(_ variant: ButtonlessVariant? = .withoutBonds) -> SimulatedPeripheral {
        Fixtures.secureDevice(variant, storage: SimulatedStorage(softdeviceIDAfterUpdate: 0x0123))
    }

    @Test func sendsSystemPartThenApplicationEachInItsOwnConnection() async throws {
        let package = Self.package()
        let transport = SimulatedTransport(peripherals: [Self.device()])
        let log = ProgressLog()
        let report = try await Fixtures.run(package, on: transport, progress: log).get()
        #expect(report.partsSent == [.softdeviceBootloader, .application])
        let storage = transport.peripheral().storage
        let system = package.parts[0]
        let sdMatches = storage.softdevice == Array(system.image[0..<20_000])
        let blMatches = storage.bootloader == Array(system.image[20_000...])
        let appMatches = storage.application == package.parts[1].image
        #expect(sdMatches && blMatches && appMatches)
        #expect(storage.softdeviceID == 0x0123)
        #expect(storage.bootloaderVersion == 2)
        // Three connections: application, bootloader for part 1, bootloader for part 2.
        let connections = transport.trace.filter { if case .connected = $0.event { true } else { false } }
        #expect(connections.count == 3)
        #expect(transport.violations.isEmpty)
        let parts = Set(log.all.filter { $0.state == .uploading }.map(\.part))
        #expect(parts == [1, 2])
        #expect(log.all.allSatisfy { $0.totalParts == 2 })
        #expect(log.all.last?.state == .completed)
    }

    @Test func rejectedSystemPartIsSkippedAndTheApplicationStillSent() async throws {
        // The bootloader is already at version 2: "version must be greater" rejects the system part.
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds,
            storage: SimulatedStorage(softdeviceID: 0x0123, bootloaderVersion: 2))])
        let package = Self.package(blVersion: 2)
        let report = try await Fixtures.run(package, on: transport).get()
        #expect(report.partsSkipped == [.softdeviceBootloader])
        #expect(report.partsSent == [.application])
        // Same connection: the application follows the rejected init packet directly.
        #expect(report.reconnections == 0)
        let connections = transport.trace.filter { if case .connected = $0.event { true } else { false } }
        #expect(connections.count == 2)
        let appMatches = transport.peripheral().storage.application == package.parts[1].image
        #expect(appMatches)
        #expect(transport.violations.isEmpty)
    }

    @Test func rejectedSystemPartWithoutApplicationIsAnError() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds,
            storage: SimulatedStorage(bootloaderVersion: 5))])
        let package = DFUPackage(format: .secure, parts: [Self.package().parts[0]])
        let result = await Fixtures.run(package, on: transport)
        guard case .failure(.remote(.executingInitPacket, _, .secure(.extendedError, .firmwareVersionFailure))) = result else {
            Issue.record("expected the init packet rejection, got \(result)")
            return
        }
    }

    struct ScopeCase: CustomTestStringConvertible, Sendable {
        let scope: DFUScope
        let sent: [PartKind]
        var testDescription: String { scope.rawValue }
    }

    @Test(arguments: [
        ScopeCase(scope: .all, sent: [.softdeviceBootloader, .application]),
        ScopeCase(scope: .system, sent: [.softdeviceBootloader]),
        ScopeCase(scope: .application, sent: [.application]),
    ])
    func scopeLimitsThePartsSent(_ testCase: ScopeCase) async throws {
        let storage = SimulatedStorage(softdeviceID: testCase.scope == .application ? 0x0123 : 0x0100,
                                       softdeviceIDAfterUpdate: 0x0123)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds, storage: storage)])
        let report = try await Fixtures.run(Self.package(), on: transport,
                                            options: Fixtures.options { $0.scope = testCase.scope }).get()
        #expect(report.partsSent == testCase.sent)
        #expect(transport.violations.isEmpty)
    }

    @Test func separateSoftDeviceAndBootloaderPartsAreInstalled() async throws {
        let softdevice = Fixtures.securePart(.softdevice, size: 12_000, seed: 9, softdeviceRequirements: [0x0100])
        let bootloader = Fixtures.securePart(.bootloader, size: 6_000, seed: 10, firmwareVersion: 3,
                                             softdeviceRequirements: [0x0100])
        for part in [softdevice, bootloader] {
            let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
            let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport).get()
            #expect(report.partsSent == [part.kind])
            let storage = transport.peripheral().storage
            let installed = part.kind == .softdevice ? storage.softdevice == part.image : storage.bootloader == part.image
            #expect(installed)
        }
    }
}
