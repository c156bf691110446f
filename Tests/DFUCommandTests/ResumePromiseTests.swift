import DFUCommand
import DFUCore
import DFUSimulator
import Testing

/// What `dfu` says after an interrupt is what running it again does.
@Suite struct ResumePromiseTests {
    static let device = SimulatedRig.firstAddress
    static let multiPart = UploadCommandTests.package("secure-sd-bl-app.zip")
    static let big = UploadCommandTests.package("secure-app-512000.zip")

    /// An SDK 12-14 bootloader: no Abort, it keeps what it received.
    static func keepingDevice() -> SimulatedRig {
        SimulatedRig([device: SimulatedRig.secureDevice(configure: { $0.supportsAbort = false })])
    }

    @Test func interruptedInTheApplicationPartPromisesTheScopeThatSendsOnlyIt() async throws {
        let rig = Self.keepingDevice()
        // The SoftDevice+bootloader image is 17300 bytes; stop 1000 bytes into the application.
        let first = await rig.dfu(["upload", Self.multiPart, "-d", Self.device], interruptAfterPacketBytes: 17_300 + 1_500)
        #expect(first.code == .interrupted)
        let last = try #require(first.errorLines.last)
        #expect(last.hasPrefix("dfu: \(Self.device): interrupted in part 2/2 "), "\(last)")
        #expect(last.hasSuffix("the parts before it are installed; to send only the application, run the same command with --scope application"))
        #expect(!last.contains("run the same command again to resume"))
        let systemWrites = rig.writes(to: .securePacket).count
        let second = await rig.dfu(["upload", Self.multiPart, "-d", Self.device, "--scope", "application", "-v"])
        #expect(second.code == .success, "\(second.error)")
        #expect(second.error.contains("part 1/1"), "only the application is sent")
        let sentAgain = rig.writes(to: .securePacket).dropFirst(systemWrites).reduce(0) { $0 + $1.count }
        #expect(sentAgain < 17_300, "part 1 was not sent again (\(sentAgain) bytes)")
        #expect(rig.transport()?.peripheral().storage.application?.count == 3000)
    }

    @Test func aBootloaderThatKeepsWhatItGotIsResumedAndVerboseSaysWhere() async throws {
        let rig = Self.keepingDevice()
        let first = await rig.dfu(["upload", Self.big, "-d", Self.device], interruptAfterPacketBytes: 300_000)
        #expect(first.code == .interrupted)
        let last = try #require(first.errorLines.last)
        #expect(last.hasSuffix("the device stays in its bootloader with what it received; the same command again resumes where the bootloader stopped"))
        let second = await rig.dfu(["upload", Self.big, "-d", Self.device, "-v"])
        #expect(second.code == .success, "\(second.error)")
        let resumed = second.errorLines.first { $0.contains("resuming part 1 at byte ") }
        let offset = try #require(resumed.flatMap { Int($0.split(separator: " ").last ?? "") }, "\(second.error)")
        #expect(offset > 200_000 && offset < 512_000, "\(offset)")
    }

    @Test func afterAbortNoResumeIsPromised() async throws {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let first = await rig.dfu(["upload", Self.big, "-d", Self.device], interruptAfterPacketBytes: 100_000)
        #expect(first.code == .interrupted)
        let last = try #require(first.errorLines.last)
        #expect(last.contains("the bootloader accepted Abort") && last.hasSuffix("the same command again starts this part over"), "\(last)")
    }
}
