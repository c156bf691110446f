import DFUCommand
import DFUCore
import DFUCrypto
import DFUSimulator
import Foundation
import Testing
import DFUFormats

/// `dfu upload` run in-process over simulated devices on a virtual clock.
@Suite struct UploadCommandTests {
    static func package(_ name: String) -> String { TestData.fixtures.appendingPathComponent("packages/\(name)").path }
    static let app = package("secure-app-4096.zip")
    static let device = SimulatedRig.firstAddress

    @Test func uploadsAPackageAndReportsTimeAndSpeed() async throws {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", Self.app, "--device", Self.device])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.output.isEmpty)
        let storage = try #require(rig.transport()?.peripheral().storage)
        #expect(storage.application?.count == 4096)
        let last = try #require(run.errorLines.last)
        #expect(last.hasPrefix("\(Self.device): updated in "))
        // 4096 bytes go out in less than the two seconds a speed needs: the time, the bytes, no speed.
        #expect(last.hasSuffix(", 4096 bytes sent (application)"), "\(last)")
    }

    @Test func aDeviceNamedByItsAdvertisedNameIsFound() async {
        let rig = SimulatedRig(["Nordic_App": SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", Self.app, "--device", "Nordic_App"])
        #expect(run.code == .success, "\(run.error)")
        #expect(rig.transport("Nordic_App")?.peripheral().storage.application?.count == 4096)
    }

    @Test func aRawImageWithItsInitPacketIsUploaded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-raw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let command = SecureInitCommand(kind: .application, image: image, firmwareVersion: 2, hardwareVersion: 52,
                                        softdeviceRequirements: [0xB7], softdeviceSize: nil,
                                        hash: Array(SHA256.digest(image).reversed()))
        try Data(image).write(to: folder.appendingPathComponent("app.bin"))
        try Data(command.packet).write(to: folder.appendingPathComponent("app.dat"))
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", folder.appendingPathComponent("app.bin").path, "--type", "application",
                                 "--init", folder.appendingPathComponent("app.dat").path, "-d", Self.device])
        #expect(run.code == .success, "\(run.error)")
        #expect(rig.transport()?.peripheral().storage.application == image)
    }
}
