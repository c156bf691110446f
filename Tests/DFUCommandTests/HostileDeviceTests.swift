import Foundation
import Testing

/// `dfu upload` against SMP devices that break the protocol on purpose (dfu-sim's hostile faults, docs/dfu-sim.md;
/// docs/conformance-mcuboot.md "Hostile faults"): one device's lie is that device's failure, one line and exit 1,
/// never a trap of the whole process nor an upload that never ends.
@Suite(.enabled(if: DFUSimRun.available)) struct HostileDeviceTests {
    static let address = "C0:FF:EE:00:00:10"
    static let second = "C0:FF:EE:00:00:20"

    static func stats(_ run: DFUSimRun, _ address: String = address) -> [String: Any] {
        run.device(address)?["stats"] as? [String: Any] ?? [:]
    }

    static func errorLines(_ run: DFUSimRun) -> [Substring] {
        run.error.split(separator: "\n").filter { $0.contains("buf_") || $0.contains("offset") }
    }

    @Test func aBufCountOfMinus2To63FailsThatDeviceWithOneLineNamingIt() async throws {
        let run = try await DFUSimRun.run(devices: ["smp,report_buf_count=-9223372036854775808"],
                                          ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(run.status == 1, "\(run.error)")
        let lines = Self.errorLines(run)
        #expect(lines.count == 1, "\(run.error)")
        #expect(lines.first?.contains("buf_count -9223372036854775808") == true, "\(run.error)")
        // Refused at the parameters: no upload request was sent.
        #expect((Self.stats(run)["smp_requests"] as? Int ?? 99) <= 2, "\(Self.stats(run))")
    }

    @Test(arguments: ["-9223372036854775808", "9223372036854775807", "63", "65536"])
    func aBufSizeOutOfRangeFailsThatDeviceWithOneLine(size: String) async throws {
        let run = try await DFUSimRun.run(devices: ["smp,report_buf_size=\(size)"],
                                          ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(run.status == 1, "\(run.error)")
        #expect(Self.errorLines(run).count == 1 && run.error.contains("buf_size \(size)"), "\(run.error)")
    }

    @Test func oneHostileDeviceDoesNotStopTheOthers() async throws {
        let run = try await DFUSimRun.run(devices: ["smp,report_buf_count=-9223372036854775808", "smp"],
                                          ["upload", SMPFirmware.image, "-d", Self.address, "-d", Self.second])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("\(Self.second): updated in "), "\(run.error)")
    }

    @Test func aDeviceThatKeepsAnsweringOffsetZeroFailsAfterABoundedNumberOfRequests() async throws {
        let run = try await DFUSimRun.run(devices: ["smp,lying_offset=yes"],
                                          ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("moved the upload offset of image 0 back 5 times"), "\(run.error)")
        // Five times back to 0: each round is the first chunk and at most a window (buf_count − 2 = 2) of others,
        // so with the parameters, image list and reassembly probe well under 40 requests.
        let requests = try #require(Self.stats(run)["smp_requests"] as? Int, "\(run.report)")
        #expect(requests <= 40, "\(requests) SMP requests")
    }

    /// Answers to requests never made (the flood fault: 20 before each real answer, other sequence numbers, each
    /// saying `off` 0) are not answers: the upload goes on from the real ones, and the image lands whole.
    @Test func aFloodOfAnswersToRequestsNeverMadeIsIgnoredAndTheUpdateCompletes() async throws {
        let run = try await DFUSimRun.run(devices: ["smp,flood=20"],
                                          ["upload", SMPFirmware.image, "-d", Self.address, "--no-reset"])
        #expect(run.status == 0, "\(run.error)")
        let slots = run.device(Self.address)?["slots"] as? [[String: Any]] ?? []
        #expect(slots.contains { $0["slot"] as? Int == 1 && $0["hash"] as? String == SMPFirmware.imageHashHex }, "\(run.report)")
        // Not followed back to offset 0: as many upload requests as without the flood, give or take a window.
        let requests = try #require(Self.stats(run)["smp_requests"] as? Int, "\(run.report)")
        #expect(requests <= 60_552 / 100, "\(requests) SMP requests")
    }

    /// A device that answers, slowly, for longer than the deadline: its update ends there (exit 2), whatever it does.
    @Test func anUpdateThatOutlivesItsDeadlineFailsWithOneLineAndExit2() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], simulator: ["--link", "smp_paced=yes,interval_ms=200"],
                                          ["upload", SMPFirmware.image, "-d", Self.address, "--deadline", "1", "-q"])
        #expect(run.status == 2, "\(run.error)")
        #expect(run.error.contains("did not finish within its deadline of 1 s"), "\(run.error)")
        #expect(run.error.split(separator: "\n").count == 1, "\(run.error)")
    }

    @Test(arguments: ["0", "86401", "soon", "-1"])
    func aDeadlineOutsideOneSecondToADayIsAUsageError(value: String) async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", SMPFirmware.image, "-d", Self.address, "--deadline", value])
        #expect(run.status == 64, "\(run.error)")
        #expect(run.error.contains("option --deadline"), "\(run.error)")
    }

    @Test func theAutomaticDeadlineLetsAWorkingDeviceFinish() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", SMPFirmware.image, "-d", Self.address, "--deadline", "auto"])
        #expect(run.status == 0, "\(run.error)")
    }
}
