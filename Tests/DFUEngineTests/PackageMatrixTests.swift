import DFUCore
import DFUSimulator
import Testing
import DFUFormats

/// Every package type over every way into the Secure bootloader, and over Legacy.
@Suite struct PackageMatrixTests {
    enum Entry: String, CaseIterable, Sendable {
        case bootloader, withoutBonds, withBonds, experimental
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let kinds: [PartKind]
        let entry: Entry
        var testDescription: String { kinds.map(\.rawValue).joined(separator: "+") + " via " + entry.rawValue }
    }

    static let types: [[PartKind]] = [[.application], [.softdevice], [.bootloader], [.softdeviceBootloader],
                                       [.softdeviceBootloader, .application], [.softdevice, .application],
                                       [.bootloader, .application]]

    static func parts(_ kinds: [PartKind]) -> [FirmwarePart] {
        kinds.enumerated().map { index, kind in
            Fixtures.securePart(kind, size: 5_000 + 1_000 * index, seed: UInt32(20 + index), firmwareVersion: 3,
                                softdeviceRequirements: kind == .application ? [0x0100, 0x0200] : [0x0100],
                                softdeviceSize: kind == .softdeviceBootloader ? 3_000 : nil)
        }
    }

    @Test(arguments: types.flatMap { kinds in Entry.allCases.map { Case(kinds: kinds, entry: $0) } })
    func secureUploadCompletesByteExact(_ testCase: Case) async throws {
        let variant: ButtonlessVariant? = switch testCase.entry {
        case .bootloader: nil
        case .withoutBonds: .withoutBonds
        case .withBonds: .withBonds
        case .experimental: .experimental
        }
        // A device entered without buttonless has no application to come back to (a fresh board);
        // otherwise a bootloader-only update boots the application again and it is switched once more.
        let storage = SimulatedStorage(application: variant == nil ? nil : [0xA5], softdeviceIDAfterUpdate: 0x0200)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(variant, storage: storage, bonded: true)])
        let parts = Self.parts(testCase.kinds)
        let options = Fixtures.options { $0.experimentalButtonless = true }
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: parts), on: transport, options: options).get()
        #expect(report.partsSent == testCase.kinds)
        Fixtures.expectInstalled(parts, in: transport.peripheral().storage)
        #expect(transport.violations.isEmpty)
    }

    @Test(arguments: [[PartKind.application], [.softdevice], [.bootloader], [.softdeviceBootloader],
                      [.softdeviceBootloader, .application]], [false, true])
    func legacyUploadCompletesByteExact(_ kinds: [PartKind], fromApplication: Bool) async throws {
        let parts = kinds.enumerated().map { index, kind in
            Fixtures.legacyPart(kind, size: 2_000 + 500 * index, seed: UInt32(30 + index),
                                softdeviceSize: kind == .softdeviceBootloader ? 1_200 : nil)
        }
        let device = Fixtures.legacyDevice(application: fromApplication ? SimulatedLegacyApplication() : nil)
        let transport = SimulatedTransport(peripherals: [device])
        let report = try await Fixtures.run(DFUPackage(format: .legacy, parts: parts), on: transport).get()
        #expect(report.partsSent == kinds)
        Fixtures.expectInstalled(parts, in: transport.peripheral().storage)
        #expect(transport.violations.isEmpty)
    }
}
