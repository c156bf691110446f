import Foundation
import Testing

/// `dfu upload` and `dfu trigger` against the firmware loader kinds of `dfu-sim run` (`smp-loader`: the nRF Connect
/// SDK's loader at the application's address; `smp-loader-bm`: the Bare Metal option's, at the address with bit 0 of
/// its last byte inverted), through bluetoothd's stand-in: the report's slots say what the device holds and runs.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimFirmwareLoaderTests {
    static let address = "C0:FF:EE:00:00:10"
    /// Where the Bare Metal loader of ``address`` advertises (0x10 with bit 0 inverted).
    static let loaderAddress = "C0:FF:EE:00:00:11"

    /// The report's slots of the device: (slot, hash, active).
    static func slots(_ run: DFUSimRun) -> [(slot: Int, hash: String, active: Bool)] {
        (run.device(address)?["slots"] as? [[String: Any]] ?? []).map {
            ($0["slot"] as? Int ?? -1, $0["hash"] as? String ?? "", $0["active"] as? Bool ?? false)
        }
    }

    @Test(arguments: ["smp-loader", "smp-loader-bm"])
    func anUploadGoesThroughTheLoaderAndTheApplicationRunsTheNewImage(kind: String) async throws {
        let run = try await DFUSimRun.run(devices: ["\(kind),address=\(Self.address)"],
                                          ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        // The application's slot holds the image and runs; the loader waits in slot 1.
        let slots = Self.slots(run)
        #expect(slots.first { $0.slot == 0 }?.hash == SMPFirmware.imageHashHex, "\(slots)")
        #expect(slots.first { $0.slot == 0 }?.active == true, "\(slots)")
        #expect(slots.first { $0.slot == 1 }?.active == false, "\(slots)")
        #expect(run.error.contains("image 0: running, confirmed"), "\(run.error)")
    }

    @Test func triggerSwitchesTheBareMetalApplicationIntoItsLoaderAndPrintsWhereItIs() async throws {
        let run = try await DFUSimRun.run(devices: ["smp-loader-bm,address=\(Self.address)"],
                                          ["trigger", "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains(Self.loaderAddress), "\(run.output)")
        #expect(Self.slots(run).first { $0.slot == 1 }?.active == true, "the loader runs: \(Self.slots(run))")
    }

    @Test func aLoaderThatNeverAdvertisesEndsTheUploadWithTheDeviceNotFound() async throws {
        let run = try await DFUSimRun.run(devices: ["smp-loader,address=\(Self.address),loader_silent=yes"],
                                          ["upload", SMPFirmware.image, "-d", Self.address, "-t", "2"])
        #expect(run.status == 2, "\(run.error)")
        #expect(run.error.contains(Self.address), "\(run.error)")
        // The application's image is untouched: the loader never took anything.
        #expect(Self.slots(run).first { $0.slot == 0 }?.hash != SMPFirmware.imageHashHex)
    }

    @Test func anApplicationThatDoesNotSayItsModeIsUpdatedWithTheUsersWord() async throws {
        let refused = try await DFUSimRun.run(devices: ["smp-loader,address=\(Self.address),bootloader_info=no"],
                                              ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(refused.status != 0)
        #expect(refused.error.contains("--firmware-loader"), "\(refused.error)")
        let run = try await DFUSimRun.run(devices: ["smp-loader,address=\(Self.address),bootloader_info=no"],
                                          ["upload", SMPFirmware.image, "-d", Self.address, "--firmware-loader"])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.slots(run).first { $0.slot == 0 }?.hash == SMPFirmware.imageHashHex)
    }
}
