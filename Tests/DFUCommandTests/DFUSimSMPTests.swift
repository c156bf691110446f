import Foundation
import Testing

/// `dfu` over SMP through bluetoothd's stand-in (`dfu-sim run --device smp…`): the BlueZ transport, the
/// command line and the simulated Zephyr/MCUboot device together, the device's slots read from the report.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimSMPTests {
    static let address = "C0:FF:EE:00:00:10"
    static let second = "C0:FF:EE:00:00:20"

    static func slots(_ run: DFUSimRun, _ address: String = address) -> [[String: Any]] {
        run.device(address)?["slots"] as? [[String: Any]] ?? []
    }

    static func stats(_ run: DFUSimRun, _ address: String = address) -> [String: Any] {
        run.device(address)?["stats"] as? [String: Any] ?? [:]
    }

    @Test func uploadTestsResetsAndConfirmsTheImageOnTheStandIn() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        let running = try #require(Self.slots(run).first { $0["slot"] as? Int == 0 })
        #expect(running["hash"] as? String == SMPFirmware.imageHashHex)
        #expect(running["active"] as? Bool == true && running["confirmed"] as? Bool == true)
        #expect(running["version"] as? String == "2.0.0")
        #expect(Self.stats(run)["smp_resets"] as? Int == 1)
        #expect((Self.stats(run)["smp_max_in_flight"] as? Int ?? 0) > 1, "several requests in flight")
        #expect(run.error.split(separator: "\n").last?.hasPrefix("\(Self.address): updated in ") == true, "\(run.error)")
    }

    @Test func uploadWithoutResetThenResetConfirmAndImagesInOneRun() async throws {
        let dfu = TestData.dfuExecutable.path
        let script = """
            "$0" upload "$1" -d \(Self.address) --no-reset -q && "$0" images -d \(Self.address) && \
            "$0" reset -d \(Self.address) && "$0" confirm -d \(Self.address) >/dev/null && "$0" images -d \(Self.address) --json
            """
        let run = try await DFUSimRun.run(devices: ["smp"], command: ["/bin/sh", "-c", script, dfu, SMPFirmware.image])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n")
        // The table after the upload: the new image waits in slot 1, pending.
        #expect(lines.contains { $0.hasPrefix("0      1     2.0.0") && $0.contains("pending") }, "\(run.output)")
        let last = try #require(lines.last)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let running = try #require((answer["slots"] as? [[String: Any]])?.first { $0["slot"] as? Int == 0 })
        #expect(running["hash"] as? String == SMPFirmware.imageHashHex)
        #expect(running["active"] as? Bool == true && running["confirmed"] as? Bool == true)
        #expect(run.error.contains("dfu: \(Self.address) was reset"))
        #expect(Self.stats(run)["smp_resets"] as? Int == 1)
        #expect(Self.slots(run).first { $0["slot"] as? Int == 0 }?["hash"] as? String == SMPFirmware.imageHashHex)
    }

    @Test func anAuthenticatedSMPServerPairsWithThePasskeyGiven() async throws {
        let run = try await DFUSimRun.run(devices: ["smp-auth,passkey=654321"],
                                    ["upload", SMPFirmware.image, "-d", Self.address, "--passkey", "654321"])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.slots(run).first { $0["slot"] as? Int == 0 }?["hash"] as? String == SMPFirmware.imageHashHex)
    }

    @Test func imagesOfAnAuthenticatedSMPServerPairWithThePasskeyGiven() async throws {
        let run = try await DFUSimRun.run(devices: ["smp-auth,passkey=654321"], ["images", "-d", Self.address, "--passkey", "654321", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect((answer["slots"] as? [[String: Any]])?.first?["version"] as? String == "1.0.0+0", "\(run.output)")
    }

    /// The passkey in a file the rig wrote, out of the process list that every local user can read.
    @Test func anAuthenticatedSMPServerPairsWithThePasskeyFromAFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-passkey-\(UUID().uuidString)")
        try Data("654321\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await DFUSimRun.run(devices: ["smp-auth,passkey=654321"],
                                          ["images", "-d", Self.address, "--passkey-file", file.path, "--json"])
        #expect(run.status == 0, "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect((answer["slots"] as? [[String: Any]])?.first?["version"] as? String == "1.0.0+0", "\(run.output)")
    }

    @Test func aWrongPasskeyFailsWithOneLineAndExit1() async throws {
        let run = try await DFUSimRun.run(devices: ["smp-auth,passkey=654321"],
                                    ["upload", SMPFirmware.image, "-d", Self.address, "--passkey", "111111"])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.split(separator: "\n").filter { $0.hasPrefix("dfu: ") }.count == 1, "\(run.error)")
        #expect(Self.slots(run).first { $0["slot"] as? Int == 0 }?["version"] as? String == "1.0.0", "nothing was installed")
    }

    @Test func anAuthenticatedSMPServerWithoutAPasskeyFailsWithOneLineNamingTheOption() async throws {
        // Standard input is no terminal here: nobody can be asked.
        let run = try await DFUSimRun.run(devices: ["smp-auth"], ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(run.status == 1, "\(run.error)")
        let failure = run.error.split(separator: "\n").filter { $0.hasPrefix("dfu: ") }
        #expect(failure.count == 1, "\(run.error)")
        #expect(failure.first?.contains("--passkey") == true, "\(run.error)")
        #expect(Self.slots(run).first { $0["slot"] as? Int == 0 }?["version"] as? String == "1.0.0", "nothing was installed")
    }

    /// Without `--passkey` dfu pairs Just Works; the bond that makes does not open an authenticated server's
    /// characteristic, so dfu removes it, and the rerun with the passkey pairs afresh instead of finding a useless bond.
    @Test func aRunWithoutThePasskeyLeavesNoBondSoTheRerunWithThePasskeyPairs() async throws {
        let dfu = TestData.dfuExecutable.path
        let script = """
            "$0" images -d \(Self.address); echo "first=$?" >&2; "$0" images -d \(Self.address) --passkey 654321 --json
            """
        let run = try await DFUSimRun.run(devices: ["smp-auth,passkey=654321"], command: ["/bin/sh", "-c", script, dfu])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("first=1"), "\(run.error)")
        let failure = run.error.split(separator: "\n").filter { $0.hasPrefix("dfu: ") }
        #expect(failure.count == 1 && failure.first?.contains("--passkey") == true, "\(run.error)")
        #expect(failure.first?.contains("bluetoothctl") == false, "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)")
        #expect((answer["slots"] as? [[String: Any]])?.first?["version"] as? String == "1.0.0+0", "\(run.output)")
    }

    /// A server that ends the link when a pairing cannot give it authenticated keys (reason 0x05 in its log):
    /// the failure is a pairing's, with the option that fixes it, never a range problem or an upload that resumes.
    @Test func aServerEndingTheLinkDuringPairingIsNamedAnAuthenticationFailure() async throws {
        let run = try await DFUSimRun.run(devices: ["smp-auth,passkey=654321,weak_pairing=disconnect"], ["images", "-d", Self.address])
        #expect(run.status == 1, "\(run.error)")
        let failure = run.error.split(separator: "\n").filter { $0.hasPrefix("dfu: ") }
        #expect(failure.count == 1, "\(run.error)")
        let line = String(failure.first ?? "")
        #expect(line.contains("pairing with \(Self.address) failed") && line.contains("authentication"), "\(run.error)")
        #expect(line.contains("--passkey"), "\(run.error)")
        #expect(!line.contains("move closer") && !line.contains("upload"), "\(run.error)")
    }

    /// After that failure no bond is left, and the same server pairs with the passkey it shows.
    @Test func aServerThatEndedAWeakPairingPairsWithThePasskeyOnTheRerun() async throws {
        let dfu = TestData.dfuExecutable.path
        let script = """
            "$0" images -d \(Self.address); "$0" images -d \(Self.address) --passkey 654321 --json
            """
        let run = try await DFUSimRun.run(devices: ["smp-auth,passkey=654321,weak_pairing=disconnect"],
                                          command: ["/bin/sh", "-c", script, dfu])
        #expect(run.status == 0, "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)")
        #expect((answer["slots"] as? [[String: Any]])?.first?["version"] as? String == "1.0.0+0", "\(run.output)")
    }

    @Test func aMixedFleetUpdatesTheSMPServerAndRefusesTheNRF5Device() async throws {
        let run = try await DFUSimRun.run(devices: ["smp", "buttonless,sd_id=0xB7"],
                                    ["upload", SMPFirmware.image, "-d", Self.address, "-d", Self.second, "--json"])
        #expect(run.status == 65, "\(run.error)")
        #expect(Self.slots(run).first { $0["slot"] as? Int == 0 }?["hash"] as? String == SMPFirmware.imageHashHex)
        let summary = try #require(run.output.split(separator: "\n").last)
        #expect(summary.contains("\"failed\":[\"\(Self.second)\"]") && summary.contains("\"updated\":1"), "\(summary)")
        #expect(run.error.contains("the firmware does not fit the device"), "\(run.error)")
    }

    @Test func aMixedFleetGivenBothFilesIsUpdatedInOneRun() async throws {
        let run = try await DFUSimRun.run(devices: ["smp", "buttonless,sd_id=0xB7"],
                                    ["upload", UploadCommandTests.app, SMPFirmware.image, "-d", Self.address, "-d", Self.second])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.slots(run).first { $0["slot"] as? Int == 0 }?["hash"] as? String == SMPFirmware.imageHashHex)
        #expect((run.device(Self.second)?["images"] as? [String: Any])?["application"] != nil, "\(run.report)")
        #expect(run.error.split(separator: "\n").last == "2 devices: 2 updated, 0 not updated", "\(run.error)")
    }

    @Test func theNRF5340PackageUpdatesBothCores() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        try #require(FileManager.default.fileExists(atPath: zip), "the committed fixture \(zip) is missing")
        let run = try await DFUSimRun.run(devices: ["smp-nrf5340"], ["upload", zip, "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        let running = Self.slots(run).filter { $0["slot"] as? Int == 0 }
        #expect(Set(running.compactMap { $0["image"] as? Int }) == [0, 1])
        #expect(running.allSatisfy { $0["active"] as? Bool == true })
        #expect(Self.stats(run)["smp_resets"] as? Int == 1, "one reset for both images")
    }

    @Test func scanShowsModeSMPThroughTheStandIn() async throws {
        let run = try await DFUSimRun.run(devices: ["smp", "secure"], ["scan", "--json", "-t", "1"])
        #expect(run.status == 0, "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let devices = try #require(answer["devices"] as? [[String: Any]])
        #expect(devices.first { $0["address"] as? String == Self.address }?["mode"] as? String == "smp", "\(run.output)")
        #expect(devices.first { $0["address"] as? String == Self.second }?["mode"] as? String == "secure-bootloader", "\(run.output)")
    }
}
