import DFUCommand
import Foundation
import Testing

/// Packages made by `dfu pkg generate` go through `dfu upload` to a simulated device (`dfu-sim run`)
/// and land in its flash byte for byte (the CRC-32 of each installed image is the package's).
@Suite(.enabled(if: DFUSimRun.available)) struct PkgGenerateUploadTests {
    static let address = "C0:FF:EE:00:00:10"

    @Test(arguments: ["signed-sd-bl-app", "signed-app", "app-hex", "legacy-app", "legacy-app-0.6", "legacy-bl-app"])
    func generatedPackageUploadsByteExact(_ name: String) async throws {
        let fixture = try #require(NrfutilFixtures.cases.first { $0.name == name })
        let out = try NrfutilFixtures.temporaryFolder().appendingPathComponent("\(name).zip")
        let made = await RecordedRun.dfu(arguments: ["pkg", "generate"] + fixture.absoluteArguments + [out.path])
        #expect(made.code == .success, "\(made.error)")
        var upload = ["upload", out.path, "-d", Self.address]
        if fixture.isSigned { upload += ["--key", NrfutilFixtures.testPublicKey] }
        let device = name.hasPrefix("legacy-") ? "legacy-app,address=\(Self.address)" : "buttonless,address=\(Self.address),sd_id=0xB7,sd_id_after=0x101"
        let run = try await DFUSimRun.run(devices: [device], upload)
        #expect(run.status == 0, "\(run.error)")
        let crcs = try await DFUSimRun.packageCRCs(out.path)
        #expect(!crcs.isEmpty)
        if let application = crcs["application"] {
            #expect(run.imageCRC(Self.address, "application") == application)
        }
        if let bootloader = crcs["bootloader"] {
            #expect(run.imageCRC(Self.address, "bootloader") == bootloader)
        }
        if crcs["softdevice_bootloader"] != nil {
            #expect(run.imageSize(Self.address, "softdevice") == 6000)
            #expect(run.imageSize(Self.address, "bootloader") == 2500)
        }
    }
}
