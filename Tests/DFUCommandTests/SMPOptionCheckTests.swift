@testable import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Issue 26 point 9: `--smp-chunk` checked with the other options; `--no-resume` explained for SMP.
@Suite struct SMPOptionCheckTests {
    static let device = SimulatedRig.firstAddress

    @Test func aChunkTooSmallForTheFirstRequestIsRefusedWithTheOptions() async {
        let minimum = SMPUploadChunk.smallestFirstFrame
        let run = await RecordedRun.dfu(arguments: ["upload", SMPFirmware.image, "-d", Self.device, "--smp-chunk", "64"])
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.hasPrefix("dfu: option --smp-chunk: '64' is not a whole number from \(minimum) to 65535"), "\(run.error)")
    }

    @Test func theSmallestChunkAcceptedUploads() async {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--smp-chunk", "\(SMPUploadChunk.smallestFirstFrame)",
                                 "--smp-window", "4", "--no-reset"])
        #expect(run.code == .success, "\(run.error)")
        #expect(SMPFirmware.target(rig)?.slots[0].secondary == SMPFirmware.imageBytes)
    }

    @Test func noResumeWithAnMCUbootImageSaysHowToStartOver() async {
        let run = await RecordedRun.dfu(arguments: ["upload", SMPFirmware.image, "-d", Self.device, "--no-resume"])
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.contains("to start over, run 'dfu erase' on the device first (or reset it)"), "\(run.error)")
    }
}
