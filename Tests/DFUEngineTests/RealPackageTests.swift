import DFUCore
import DFUSimulator
import Foundation
import Testing
import ZipArchive
import DFUFormats

/// Every package the project knows, read by the package reader and uploaded byte-exact to a simulated
/// bootloader configured from its own init packets: `firmware-samples/`, `Tests/Fixtures/packages/`,
/// and the 102 Nordic packages in `../shared/nordic-samples` (skipped when absent).
@Suite struct RealPackageTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let nordic = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/nordic-samples")
    static var nordicAvailable: Bool { FileManager.default.fileExists(atPath: nordic.appendingPathComponent("samples.json").path) }

    /// A 2016 pre-release package whose hash is stored big-endian: SDK 15–17 bootloaders reject the image.
    static let preRelease = "signed_s132_2.0.0.zip"

    static func zips(under directory: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".zip") }.sorted()
            .map { directory.appendingPathComponent($0).path }
    }

    static let projectPackages = zips(under: packageRoot.appendingPathComponent("firmware-samples"))
        + zips(under: packageRoot.appendingPathComponent("Tests/Fixtures/packages"))

    @Test(arguments: projectPackages)
    func uploadsEveryProjectPackageByteExact(_ path: String) async throws {
        try await Self.upload(path)
    }

    @Test(.enabled(if: nordicAvailable, "needs ../shared/nordic-samples"), arguments: zips(under: nordic))
    func uploadsEveryNordicSamplePackageByteExact(_ path: String) async throws {
        try await Self.upload(path)
    }

    static func upload(_ path: String) async throws {
        let entries = try ZipArchive.readAll(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let package = try DFUPackage(entries: entries)
        let transport = SimulatedTransport(peripherals: [device(for: package)])
        let result = await Fixtures.run(package, on: transport)
        if path.hasSuffix(preRelease) {
            guard case .failure(.remote(.validatingFirmware, _, .secure(.extendedError, .verificationFailed))) = result else {
                Issue.record("expected the pre-release hash to be rejected, got \(result)")
                return
            }
            return
        }
        #expect(throws: Never.self) { try result.get() }
        Fixtures.expectInstalled(package.parts, in: transport.peripheral().storage, from: path)
        #expect(transport.violations.isEmpty)
    }

    /// A device in its bootloader that runs what the first part requires and installs what the last requires.
    static func device(for package: DFUPackage) -> SimulatedPeripheral {
        let any: UInt32 = 0xFFFE
        if package.format == .secure {
            let commands = package.parts.compactMap { SecureInitCommand(packet: $0.initPacket) }
            let before = commands.first?.softdeviceRequirements.first { $0 != any } ?? 0x0100
            let after = commands.last?.softdeviceRequirements.first { $0 != any } ?? before
            var configuration = SecureBootloaderConfiguration()
            configuration.hardwareVersion = commands.first?.hardwareVersion ?? 52
            let storage = SimulatedStorage(application: nil, applicationVersion: 0, softdeviceID: before,
                                           softdeviceIDAfterUpdate: after, bootloaderVersion: 0)
            return Fixtures.secureDevice(configuration: configuration, storage: storage, startInBootloader: true)
        }
        let headers = package.parts.compactMap { try? LegacyInitPacket(bytes: $0.initPacket, dfuVersion: nil).header }
        let specific = headers.map { $0.softdeviceRequirements.first { UInt32($0) != any }.map(UInt32.init) }
        let before = specific.first.flatMap { $0 } ?? 0x0080
        let after = specific.last.flatMap { $0 } ?? before
        var configuration = LegacyBootloaderConfiguration()
        // SDK 6 packages carry a bare CRC-16: their bootloaders have no DFU Version characteristic.
        if package.parts.contains(where: { $0.initPacket.count == 2 }) { configuration.version = nil }
        return Fixtures.legacyDevice(configuration, storage: SimulatedStorage(application: nil, softdeviceID: before,
                                                                              softdeviceIDAfterUpdate: after))
    }
}
