import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Every real package in `../shared/nordic-samples` (102 zips from Nordic's iOS library), uploaded
/// byte-exact to a simulated bootloader configured from its own init packets. Skipped when absent.
@Suite struct NordicSampleTests {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/nordic-samples")
    static let catalogue = root.appendingPathComponent("samples.json")
    static var available: Bool { FileManager.default.fileExists(atPath: catalogue.path) }

    struct Sample: CustomTestStringConvertible, Sendable {
        let file: String
        let format: PackageFormat
        let hardwareVersion: UInt32
        let softdeviceRequirements: [[UInt32]]
        var testDescription: String { file }
    }

    static func samples() -> [Sample] {
        guard let data = try? Data(contentsOf: catalogue),
            let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return list.compactMap { entry in
            guard let file = entry["file"] as? String, let format = (entry["format"] as? String).flatMap(PackageFormat.init),
                let parts = entry["parts"] as? [[String: Any]] else { return nil }
            var hardware: UInt32 = 52
            var requirements: [[UInt32]] = []
            for part in parts {
                let initData = part["init"] as? [String: Any] ?? [:]
                if let hw = initData["hw_version"] as? Int { hardware = UInt32(hw) }
                let secure = (initData["sd_req"] as? [String] ?? []).compactMap { UInt32($0.dropFirst(2), radix: 16) }
                let legacy = (initData["softdevice_req"] as? [Int] ?? []).map { UInt32($0) }
                requirements.append(secure + legacy)
            }
            return Sample(file: file, format: format, hardwareVersion: hardware, softdeviceRequirements: requirements)
        }
    }

    /// Builds the package from the zip's manifest: each entry's bin/dat and, for SD+BL, the two sizes.
    static func package(_ sample: Sample) throws -> DFUPackage {
        let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(sample.file)))
        let zip = try SampleZip(bytes: bytes)
        guard let manifestBytes = zip.entries["manifest.json"],
            let json = try JSONSerialization.jsonObject(with: Data(manifestBytes)) as? [String: Any],
            let manifest = json["manifest"] as? [String: Any] else { throw SampleZip.Failure(description: "no manifest") }
        var parts: [FirmwarePart] = []
        for kind in PartKind.allCases {
            guard let entry = manifest[kind.rawValue] as? [String: Any], let bin = entry["bin_file"] as? String,
                let image = zip.entries[bin] else { continue }
            let datName = entry["dat_file"] as? String
            let metadata = entry["info_read_only_metadata"] as? [String: Any] ?? entry
            let sd = (metadata["sd_size"] as? Int).map(UInt32.init)
            let bl = (metadata["bl_size"] as? Int).map(UInt32.init)
            parts.append(FirmwarePart(kind: kind, image: image, initPacket: datName.flatMap { zip.entries[$0] } ?? [],
                                      softdeviceSize: kind == .softdeviceBootloader ? sd : nil,
                                      bootloaderSize: kind == .softdeviceBootloader ? bl : nil,
                                      imageName: bin, initPacketName: datName))
        }
        return DFUPackage(format: sample.format, parts: parts)
    }

    @Test(.enabled(if: available, "needs ../shared/nordic-samples"), arguments: samples())
    func uploadsEveryRealPackageByteExact(_ sample: Sample) async throws {
        let package = try Self.package(sample)
        #expect(!package.parts.isEmpty)
        // The device runs whatever the first part requires and installs what the application requires.
        let any: UInt32 = 0xFFFE
        let before = sample.softdeviceRequirements.first?.first { $0 != any } ?? 0x0100
        let after = sample.softdeviceRequirements.last?.first { $0 != any } ?? before
        var storage = SimulatedStorage(application: nil, applicationVersion: 0, softdeviceID: before,
                                       softdeviceIDAfterUpdate: after, bootloaderVersion: 0)
        let device: SimulatedPeripheral
        if sample.format == .secure {
            var configuration = SecureBootloaderConfiguration()
            configuration.hardwareVersion = sample.hardwareVersion
            device = Fixtures.secureDevice(configuration: configuration, storage: storage, startInBootloader: true)
        } else {
            var configuration = LegacyBootloaderConfiguration()
            // SDK 6 packages carry a bare CRC-16: their bootloaders have no DFU Version characteristic.
            if package.parts.contains(where: { $0.initPacket.count == 2 }) { configuration.version = nil }
            storage.application = nil
            device = Fixtures.legacyDevice(configuration, storage: storage)
        }
        let transport = SimulatedTransport(peripherals: [device])
        let result = await Fixtures.run(package, on: transport)
        if sample.file.hasSuffix("signed_s132_2.0.0.zip") {
            // A 2016 pre-release package: its hash is stored big-endian, which SDK 15–17 bootloaders reject.
            guard case .failure(.remote(.validatingFirmware, _, .secure(.extendedError, .verificationFailed))) = result else {
                Issue.record("expected the pre-release hash to be rejected, got \(result)")
                return
            }
            return
        }
        #expect(throws: Never.self) { try result.get() }
        let installed = transport.peripheral().storage
        for part in package.parts {
            let split = Int(part.softdeviceSize)
            let matches: Bool
            switch part.kind {
            case .application: matches = installed.application == part.image
            case .softdevice: matches = installed.softdevice == part.image
            case .bootloader: matches = installed.bootloader == part.image
            case .softdeviceBootloader:
                matches = installed.softdevice == Array(part.image[0..<split]) && installed.bootloader == Array(part.image[split...])
            }
            #expect(matches, "\(part.kind.rawValue) of \(sample.file) not installed byte-exact")
        }
        #expect(transport.violations.isEmpty)
    }
}
