import DFUCommand
import DFUCore
import DFUSimulator
import Testing

/// Progress output that reads well: each phase once, the whole result line on narrow terminals,
/// and a bar that keeps its width.
@Suite struct OutputLayoutTests {
    static let device = SimulatedRig.firstAddress
    static let multiPart = UploadCommandTests.package("secure-sd-bl-app.zip")

    static func rig() -> SimulatedRig { SimulatedRig([device: SimulatedRig.secureDevice()]) }

    /// The text with escape sequences and carriage returns removed.
    static func stripped(_ text: String) -> String {
        text.replacing(#/\u{1B}\[[0-9;]*[A-Za-z]/#, with: "").replacing("\r", with: "")
    }

    @Test func validatingIsPrintedOncePerPartOnPlainLines() async {
        let run = await Self.rig().dfu(["upload", Self.multiPart, "-d", Self.device])
        #expect(run.code == .success, "\(run.error)")
        for part in ["1/2", "2/2"] {
            let lines = run.errorLines.filter { $0.contains("part \(part)") && $0.contains("validating") }
            #expect(lines.count == 1, "\(lines)")
        }
    }

    @Test(arguments: [80, 40])
    func theResultLineIsWholeOnANarrowTerminal(columns: Int) async {
        let run = await Self.rig().dfu(["upload", Self.multiPart, "-d", Self.device], environment: ["TERM": "xterm"],
                                       errorIsTerminal: true, columns: columns)
        #expect(run.code == .success, "\(run.error)")
        let screen = Self.stripped(run.error)
        #expect(screen.contains("(softdevice_bootloader, application)"), "\(screen.suffix(300))")
        #expect(!screen.split(separator: "\n").last.map { $0.contains("…") }!, "\(screen.suffix(300))")
    }

    @Test func theBarKeepsItsWidthThroughTheRun() async {
        let run = await Self.rig().dfu(["upload", UploadCommandTests.package("secure-app-512000.zip"), "-d", Self.device],
                                       environment: ["TERM": "xterm"], errorIsTerminal: true, columns: 80)
        #expect(run.code == .success, "\(run.error)")
        let widths = Set(Self.stripped(run.error).matches(of: #/\[([#-]+)\]/#).map { $0.output.1.count })
        #expect(widths.count == 1, "bar widths seen: \(widths)")
    }
}

/// `dfu trigger` on a device whose bootloader keeps the application's address.
@Suite struct TriggerSameAddressTests {
    @Test func aBondedDevicesBootloaderIsNotGivenTheApplicationsNameAndAltNameIsNotSilentlyDropped() async {
        let device = SimulatedRig.firstAddress
        // A bonded bootloader comes back at the same address and serves only bonded peers.
        var profile = SimulatedRig.secureDevice(variant: .withBonds, configure: { $0.requiresBonds = true }).profile
        profile.isBonded = true
        let rig = SimulatedRig([device: SimulatedPeripheral(profile: profile, storage: SimulatedStorage(softdeviceID: 0xB7))])
        let run = await rig.dfu(["trigger", "-d", device, "--alt-name", "RigBoot"])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.output == "\(device)\n", "no name: BlueZ's cached one would be the application's: \(run.output)")
        #expect(run.error.contains("--alt-name was not used"), "\(run.error)")
    }
}
