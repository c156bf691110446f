import DFUCommand
import DFUCore
import DFUSimulator
import Testing

/// Error lines point to what the user can actually do, with options that exist where they name them.
@Suite struct HintTests {
    static let device = SimulatedRig.firstAddress

    @Test func anExperimentalButtonlessDevicePointsToItsFlagNotToForceDFU() async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice(variant: .experimental)])
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"), "-d", Self.device])
        #expect(run.code == .deviceRejected, "\(run.error)")
        #expect(run.error.contains("--experimental-buttonless"), "\(run.error)")
        #expect(!run.error.contains("--force-dfu"), "\(run.error)")
    }

    @Test func triggerAcceptsForceDFU() async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["trigger", "-d", Self.device, "--force-dfu"])
        #expect(run.code == .success, "\(run.error)")
    }

    @Test func anSdReqMismatchNamesTheGeneratorsOptionAsNrfutils() async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice(softdeviceID: 0x100)])
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"), "-d", Self.device])
        #expect(run.code == .deviceRejected, "\(run.error)")
        #expect(run.error.contains("(nrfutil pkg generate --sd-req)"), "\(run.error)")
        #expect(!run.error.contains("add the installed SoftDevice's id to --sd-req"))
    }

    @Test func aLegacyRejectionNamesWhatTheBootloaderChecks() async {
        let profile = SimulatedDeviceProfile(
            address: DFUDeviceAddress(Self.device).unsafelyUnwrapped, bootloader: .legacy(LegacyBootloaderConfiguration()),
            application: .legacy(SimulatedLegacyApplication()))
        let waiting = SimulatedPeripheral(profile: profile, storage: SimulatedStorage(softdeviceID: 0x0080), startInBootloader: true)
        let rig = SimulatedRig([Self.device: waiting])
        // The package requires SoftDevice 0x88 or 0x81; the device has 0x80.
        let run = await rig.dfu(["upload", UploadCommandTests.package("legacy-app-versions.zip"), "-d", Self.device])
        #expect(run.code == .deviceRejected, "\(run.error)")
        #expect(run.error.contains("operation failed (status 6); a Legacy bootloader refuses an init packet whose device type"),
                "\(run.error)")
        #expect(run.error.contains("SoftDevice list (sd_req)"))
    }
}
