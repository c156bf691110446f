import Foundation
import TestSupport
import Testing

/// `dfu upload` end to end: the built `dfu` talks to bluetoothd's stand-in (`dfu-sim run`) over
/// D-Bus, and each option shows its effect in what the simulated devices answered (the `-vv`
/// trace carries the simulated bootloader's own responses) and in what ended up in their flash
/// (`--report`).
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimEndToEndTests {
    static let app = UploadCommandTests.package("secure-app-4096.zip")
    static let address = "C0:FF:EE:00:00:10"
    static let buttonless = "buttonless,address=\(address),sd_id=0xB7,sd_id_after=0x101"

    static func upload(_ extra: [String], package: String = app, devices: [String] = [buttonless],
                       faults: [String] = []) async throws -> DFUSimRun {
        try await DFUSimRun.run(devices: devices, faults: faults, ["upload", package, "-d", address] + extra)
    }

    @Test func uploadInstallsTheApplication() async throws {
        let run = try await Self.upload([])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4096)
        #expect(run.stat(Self.address, "connections") == 2, "application, then bootloader")
        #expect(run.error.split(separator: "\n").last?.hasPrefix("\(Self.address): updated in ") == true, "\(run.error)")
    }

    @Test(arguments: [("4", "02 04 00"), ("0", "02 00 00")])
    func prnIsWhatTheSimulatedBootloaderAcknowledges(_ value: String, _ bytes: String) async throws {
        let run = try await Self.upload(["--prn", value, "-vv"])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.error.split(separator: "\n")
        let index = try #require(lines.lastIndex { $0.hasSuffix("→ Secure DFU Control Point: Set PRN (\(bytes))") }, "\(run.error)")
        #expect(lines[lines.index(after: index)].hasSuffix("← Secure DFU Control Point: Set PRN → success (0x01) (60 02 01)"))
    }

    @Test func legacyApplicationJumpsToItsBootloaderAndIsUpdated() async throws {
        // A Legacy application (DFU Version 0.1) jumps to its bootloader at the same address.
        let run = try await Self.upload(["-vv"], package: UploadCommandTests.package("legacy-app.zip"),
                                  devices: ["legacy-app,address=\(Self.address)"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 3000)
        #expect(run.error.contains("Legacy DFU"), "the trace names the Legacy characteristics")
    }

    @Test func bondedButtonlessKeepsTheAddressAndItsBootloaderIsFoundThere() async throws {
        // With bonds the bootloader keeps the application's address; bluetoothd holds the
        // application's GATT objects from the first connection and replaces them when it
        // re-discovers the services on the next.
        let run = try await Self.upload([], devices: ["buttonless-bonded,address=\(Self.address),sd_id=0xB7"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4096)
        #expect(run.stat(Self.address, "connections") ?? 0 >= 2, "application, then bootloader at the same address")
    }

    @Test(arguments: ["version=5.66,cache=always", "version=5.55,cache=always", "version=5.80,cache=always", "version=5.66,cache=yes",
                      "version=5.66,cache=no"])
    func uploadWorksAgainstEachBluetoothdVersionAndCachePolicy(_ bluetoothd: String) async throws {
        // A buttonless application with bonds (same address, pairing, Service Changed) and one
        // without (address + 1), as each bluetoothd release and main.conf cache policy serves them.
        for device in ["buttonless-bonded,address=\(Self.address),sd_id=0xB7", Self.buttonless] {
            let run = try await DFUSimRun.run(devices: [device], simulator: ["--bluetoothd", bluetoothd],
                                        ["upload", Self.app, "-d", Self.address])
            #expect(run.status == 0, "\(bluetoothd) \(device): \(run.error)")
            #expect(run.imageSize(Self.address, "application") == 4096)
        }
    }

    @Test func aDeviceThatNowRunsItsNewApplicationIsSaidNotToOfferDFU() async throws {
        // A device that started in its bootloader is updated; its new application has no DFU service.
        // bluetoothd still holds the bootloader's GATT objects (and lists FE59 in UUIDs), so scan
        // connects to it: the re-discovered services show its real mode. The same upload again
        // exits 1 saying the device does not offer DFU, not a link failure on stale objects.
        let package = Self.app
        let dfu = TestData.dfuExecutable.path
        let script = """
            "$0" upload "$1" -d \(Self.address); echo "first run: $?" >&2
            "$0" scan --all --timeout 1
            "$0" upload "$1" -d \(Self.address); echo "second run: $?" >&2
            """
        let run = try await DFUSimRun.run(devices: ["secure,address=\(Self.address),sd_id=0xB7"],
                                    command: ["/bin/sh", "-c", script, dfu, package])
        #expect(run.error.contains("first run: 0\n"), "\(run.error)")
        let row = try #require(run.output.split(separator: "\n").first { $0.hasPrefix(Self.address) }, "\(run.output)")
        #expect(row.hasSuffix("no DFU service"), "\(row)")
        #expect(run.error.contains("second run: 1\n"), "\(run.error)")
        #expect(run.error.contains("\(Self.address): the device does not offer DFU"), "\(run.error)")
    }

    @Test func disconnectInTheMiddleOfADataObjectIsResumed() async throws {
        // The link drops after 2000 bytes of the first 4096-byte data object; dfu reconnects and
        // continues from the offset the bootloader reports.
        let run = try await Self.upload([], devices: ["secure,address=\(Self.address),sd_id=0xB7"],
                                  faults: ["disconnect-after-bytes=2000"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4096)
        #expect(run.stat(Self.address, "connections") ?? 0 >= 2, "a second connection resumed the upload")
    }

    @Test func scopeApplicationSendsOnlyTheApplication() async throws {
        let run = try await Self.upload(["--scope", "application"], package: UploadCommandTests.package("secure-sd-bl-app.zip"),
                                  devices: ["buttonless,address=\(Self.address),sd_id=0x101"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 3000)
        #expect(run.imageSize(Self.address, "softdevice") == nil)
        #expect(run.imageSize(Self.address, "bootloader") == nil)
    }

    @Test func scopeAllSendsSoftDeviceBootloaderThenApplication() async throws {
        let run = try await Self.upload([], package: UploadCommandTests.package("secure-sd-bl-app.zip"))
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "softdevice") == 12300)
        #expect(run.imageSize(Self.address, "bootloader") == 5000)
        #expect(run.imageSize(Self.address, "application") == 3000)
    }

    @Test func scopeSystemSendsOnlyTheSoftDeviceAndBootloader() async throws {
        let run = try await Self.upload(["--scope", "system"], package: UploadCommandTests.package("secure-sd-bl-app.zip"))
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "bootloader") == 5000)
        #expect(run.imageSize(Self.address, "application") != 3000)
    }

    @Test func scopeSystemOnAnApplicationPackageIsRefusedBeforeBluetooth() async throws {
        let run = try await Self.upload(["--scope", "system"])
        #expect(run.status == 65)
        #expect(run.stat(Self.address, "connections") == 0)
    }

    @Test func altNameIsWhatTheBootloaderAdvertises() async throws {
        let run = try await Self.upload(["--alt-name", "RigBoot", "-v"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("connected to C0:FF:EE:00:00:11 (RigBoot)"), "\(run.error)")
    }

    @Test func noAltNameKeepsTheDefaultName() async throws {
        let run = try await Self.upload(["--no-alt-name", "-vv"])
        #expect(run.status == 0, "\(run.error)")
        #expect(!run.error.contains("Set Advertising Name"))
        #expect(run.error.contains("connected to C0:FF:EE:00:00:11 (DfuTarg)"), "\(run.error)")
    }

    @Test func bootloaderNameAndAddressSelectTheBootloader() async throws {
        let byName = try await Self.upload(["--no-alt-name", "--bootloader-name", "DfuTarg"])
        #expect(byName.status == 0, "\(byName.error)")
        let wrongName = try await Self.upload(["--no-alt-name", "--bootloader-name", "Elsewhere", "--scan-timeout", "1"])
        #expect(wrongName.status == 2, "\(wrongName.error)")
        #expect(wrongName.error.contains("name Elsewhere"))
        let byAddress = try await Self.upload(["--bootloader-address", "C0:FF:EE:00:00:11"])
        #expect(byAddress.status == 0, "\(byAddress.error)")
    }

    @Test func scanTimeoutBoundsTheSearch() async throws {
        let (run, dfuSeconds) = try await DFUSimRun.timed(
            devices: [Self.buttonless], ["upload", Self.app, "-d", "C0:FF:EE:00:00:77", "--scan-timeout", "1"])
        #expect(run.status == 2, "\(run.error)")
        #expect(run.error.contains("was found within 1 s"), "\(run.error)")
        // dfu's own run, not dfu-sim's start and stop around it.
        #expect(dfuSeconds < 8.0 * Double(TestTime.scale), "\(dfuSeconds) s")
    }

    @Test func retriesNIsNPlusOneConnectCallsAndNoMore() async throws {
        // --retries is the only retry setting: N retries are N + 1 Connect calls per connection.
        let none = try await Self.upload(["--retries", "0"], faults: ["fail-connections=1"])
        #expect(none.status == 2, "\(none.error)")
        let one = try await Self.upload(["--retries", "1"], faults: ["fail-connections=1"])
        #expect(one.status == 0, "\(one.error)")
        let two = try await Self.upload(["--retries", "2"], faults: ["fail-connections=3"])
        #expect(two.status == 2, "\(two.error)")
        let three = try await Self.upload(["--retries", "3"], faults: ["fail-connections=3"])
        #expect(three.status == 0, "\(three.error)")
    }

    @Test func packetSizeCapsThePackets() async throws {
        let run = try await Self.upload(["--packet-size", "100", "-vv"])
        #expect(run.error.contains("→ Secure DFU Packet: 100 bytes of data"))
        #expect(!run.error.contains("→ Secure DFU Packet: 244 bytes of data"))
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4096)
    }

    @Test func packagesOfSeveralObjectsUpload() async throws {
        let run = try await Self.upload([], package: UploadCommandTests.package("secure-app-4097.zip"))
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4100, "the 4097-byte image padded to a word")
    }

    @Test func firstObjectDelayWaitsOnTheWallClock() async throws {
        let run = try await Self.upload(["--first-object-delay", "1500"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.seconds >= 1.5, "\(run.seconds) s")
        // The stand-in saw the first (only) data object's packets start 1.5 s after it was created.
        let waits = run.list(Self.address, "data_object_waits_ms")
        #expect(waits.count == 1 && waits[0] >= 1500, "\(waits)")
    }

    @Test func experimentalButtonlessIsOptIn() async throws {
        let device = "buttonless-experimental,address=\(Self.address),sd_id=0xB7"
        let refused = try await Self.upload([], devices: [device])
        #expect(refused.status == 1, "\(refused.error)")
        let allowed = try await Self.upload(["--experimental-buttonless"], devices: [device])
        #expect(allowed.status == 0, "\(allowed.error)")
        #expect(allowed.imageSize(Self.address, "application") == 4096)
    }

    @Test func keyRefusesAPackageSignedWithAnotherKey() async throws {
        let other = TestData.fixtures.appendingPathComponent("keys/other-public.pem").path
        let run = try await Self.upload(["--key", other])
        #expect(run.status == 65)
        #expect(run.stat(Self.address, "connections") == 0, "nothing is sent")
        let right = TestData.fixtures.appendingPathComponent("keys/test-public.pem").path
        await #expect(try Self.upload(["--key", right]).status == 0)
    }

    @Test func jsonEventsThroughTheStandIn() async throws {
        let run = try await Self.upload(["--json"])
        #expect(run.status == 0, "\(run.error)")
        let events = run.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.count == run.output.split(separator: "\n").count)
        #expect(events.contains { $0["event"] as? String == "progress" && $0["bytes"] as? Int == 4096 })
        #expect(events.last?["event"] as? String == "summary")
        #expect(run.error.isEmpty, "\(run.error)")
    }

    @Test func manyDevicesWithOneFailing() async throws {
        let devices = ["buttonless,address=C0:FF:EE:00:00:10,sd_id=0xB7", "buttonless,address=C0:FF:EE:00:00:20,sd_id=0xB7,hw_version=99",
                       "buttonless,address=C0:FF:EE:00:00:30,sd_id=0xB7"]
        let run = try await DFUSimRun.run(devices: devices, ["upload", Self.app, "-d", "C0:FF:EE:00:00:10", "-d", "C0:FF:EE:00:00:20",
                                                       "-d", "C0:FF:EE:00:00:30"])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.imageSize("C0:FF:EE:00:00:10", "application") == 4096)
        #expect(run.imageSize("C0:FF:EE:00:00:30", "application") == 4096)
        #expect(run.imageSize("C0:FF:EE:00:00:20", "application") != 4096)
        #expect(run.error.contains("dfu: C0:FF:EE:00:00:20: the bootloader rejected the init packet"), "\(run.error)")
        #expect(run.error.hasSuffix("3 devices: 2 updated, 1 not updated (C0:FF:EE:00:00:20)\n"), "\(run.error)")
    }

    @Test func missingOrPoweredOffAdapterIs69() async throws {
        let missing = try await Self.upload(["--adapter", "hci7"])
        #expect(missing.status == 69, "\(missing.error)")
        let present = try await Self.upload(["--adapter", "hci0"])
        #expect(present.status == 0, "the stand-in's adapter: \(present.error)")
        let off = try await DFUSimRun.run(devices: [Self.buttonless], simulator: ["--adapter-off"], ["upload", Self.app, "-d", Self.address])
        #expect(off.status == 69, "\(off.error)")
    }

    @Test func scanAndTriggerThroughTheStandIn() async throws {
        let devices = [Self.buttonless, "secure,address=C0:FF:EE:00:00:20"]
        let scan = try await DFUSimRun.run(devices: devices, ["scan", "--all", "--timeout", "1"])
        #expect(scan.status == 0, "\(scan.error)")
        #expect(scan.output.contains("C0:FF:EE:00:00:10"), "\(scan.output)")
        #expect(scan.output.contains("Secure DFU bootloader"), "\(scan.output)")
        let trigger = try await DFUSimRun.run(devices: devices, ["trigger", "-d", Self.address, "--alt-name", "RigBoot"])
        #expect(trigger.status == 0, "\(trigger.error)")
        #expect(trigger.output == "C0:FF:EE:00:00:11 RigBoot\n")
    }
}
