import Foundation
import Testing

/// `dfu upload` through `dfu-sim` where the simulated nRF5 bootloaders follow the SDK's source: the
/// signature check against `public_key=FILE`, and Legacy answers at the link's pace.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimBootloaderFidelityTests {
    static let address = "C0:FF:EE:00:00:10"
    static func key(_ name: String) -> String { TestData.fixtures.appendingPathComponent("keys/\(name)").path }

    @Test func aBootloaderBuiltWithTheSigningKeyInstallsTheSignedPackage() async throws {
        let device = "secure,address=\(Self.address),sd_id=0xB7,public_key=\(Self.key("test-public.pem"))"
        let run = try await DFUSimRun.run(devices: [device], ["upload", UploadCommandTests.package("secure-app-4096.zip"),
                                                        "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4096)
    }

    /// `nrf_dfu_validation_signature_check`: another key's signature → 60 04 05 (Invalid Object); dfu exits 1.
    @Test func aBootloaderBuiltWithAnotherKeyRefusesTheInitPacket() async throws {
        let device = "secure,address=\(Self.address),sd_id=0xB7,public_key=\(Self.key("other-public.pem"))"
        let run = try await DFUSimRun.run(devices: [device], ["upload", UploadCommandTests.package("secure-app-4096.zip"),
                                                        "-d", Self.address, "-vv"])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("(60 04 05)"), "\(run.error)")
        #expect(run.imageSize(Self.address, "application") != 4096, "nothing was installed")
    }

    /// The final Execute's answer lost on the air (the 11th control point answer of the bootloader: Set PRN,
    /// Select, Create, Checksum, Execute for the init packet; Set PRN, Select, Create, one receipt, Checksum and
    /// Execute for the 4096-byte object): the image is installed and the device runs it, so dfu exits 0. With
    /// bonds the application comes back at the bootloader's address, still advertising the DFU service.
    @Test(arguments: ["buttonless", "buttonless-bonded"])
    func aLostFinalAnswerIsSuccessNotARejection(kind: String) async throws {
        let run = try await DFUSimRun.run(devices: ["\(kind),address=\(Self.address),sd_id=0xB7"], faults: ["drop-response=11"],
                                    ["upload", UploadCommandTests.package("secure-app-4096.zip"), "-d", Self.address,
                                     "--scan-timeout", "2"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4096)
    }

    /// A Legacy bootloader's answers come at the link's pace: 20 480 bytes in 20-byte packets at 15 ms cannot
    /// take less wall time than the link model says.
    @Test func aLegacyUploadTakesTheLinksTime() async throws {
        let package = TestData.root.appendingPathComponent("firmware-samples/legacy-app.zip").path
        let run = try await DFUSimRun.run(devices: ["legacy,address=\(Self.address),sd_id=0x88"], ["upload", package, "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 20480)
        let modelled = Double(run.stat(Self.address, "modelled_ms") ?? 0) / 1000
        #expect(modelled > 0.5, "1024 packets of 20 bytes are more than 30 connection events")
        // The connection set-up (12 intervals) is modelled but not held back: 90 %.
        #expect(run.seconds >= modelled * 0.9, "\(run.seconds) s for \(modelled) s of link time")
    }
}
