import Foundation
import Testing

/// `dfu` acts only on the device the user named, through bluetoothd's stand-in (`dfu-sim run`), with
/// another device at the named address + 1 — where a non-bonded nRF5 bootloader would advertise — or
/// another device advertising the same name. The report shows what each device received.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimRightDeviceTests {
    /// The address the user names; nothing advertises there in these tests unless said.
    static let named = "C0:FF:EE:00:00:10"
    /// The named address + 1 (last byte).
    static let next = "C0:FF:EE:00:00:11"
    /// Short scans: the device named is absent, so every run scans until its timeout.
    static let scan = ["-t", "1", "--connect-timeout", "5"]

    static func stats(_ run: DFUSimRun, _ address: String) -> [String: Any] {
        run.device(address)?["stats"] as? [String: Any] ?? [:]
    }

    // MARK: - SMP devices never move

    @Test(arguments: [["reset"], ["images"], ["confirm"], ["confirm", "--hash", SMPFirmware.imageHashHex], ["erase"]])
    func anSMPCommandNamingAnAbsentAddressLeavesTheSMPDeviceAtAddressPlusOneAlone(_ command: [String]) async throws {
        let run = try await DFUSimRun.run(devices: ["smp,address=\(Self.next)"], command + ["-d", Self.named] + Self.scan)
        #expect(run.status == 2, "device not found: \(run.error)")
        #expect(!run.error.contains("was reset"), "\(run.error)")
        #expect(run.output.isEmpty, "no image list of another device: \(run.output)")
        let stats = Self.stats(run, Self.next)
        #expect(stats["connections"] as? Int == 0, "never connected to \(Self.next): \(stats)")
        #expect(stats["smp_requests"] as? Int == 0 && stats["smp_resets"] as? Int == 0, "\(stats)")
    }

    @Test func anSMPUploadNamingAnAbsentAddressWritesNothingToTheSMPDeviceAtAddressPlusOne() async throws {
        let run = try await DFUSimRun.run(devices: ["smp,address=\(Self.next)"],
                                          ["upload", SMPFirmware.image, "-d", Self.named] + Self.scan)
        #expect(run.status == 2, "device not found: \(run.error)")
        let stats = Self.stats(run, Self.next)
        #expect(stats["connections"] as? Int == 0 && stats["smp_requests"] as? Int == 0, "\(stats)")
        let slots = run.device(Self.next)?["slots"] as? [[String: Any]] ?? []
        #expect(slots.count == 1 && slots.first?["version"] as? String == "1.0.0", "only its own image: \(slots)")
    }

    @Test func triggerOnAnSMPServerWithoutAFirmwareLoaderSaysItHasNothingToSwitchTo() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["trigger", "-d", Self.named] + Self.scan)
        #expect(run.status == 1, "\(run.error)")
        #expect(run.output.isEmpty, "no bootloader reported: \(run.output)")
        #expect(run.error.split(separator: "\n").last?.hasSuffix(
            ": \(Self.named) is an SMP (MCUmgr) server, with no nRF5 DFU bootloader or MCUboot firmware loader to switch to "
            + "(it has no bootloader info); 'dfu upload' sends it MCUboot images") == true,
            "\(run.error)")
        #expect(!run.error.contains("already in its bootloader"), "\(run.error)")
        // Only asked its bootloader's mode (read-only: OS group command 8), which Zephyr's smp_svr does not answer.
        #expect(Self.stats(run, Self.named)["smp_requests"] as? Int == 1, "only the mode was asked")
    }

    // MARK: - nRF5: address + 1 only as a DFU bootloader

    @Test func anNRF5UploadNamingAnAbsentAddressLeavesTheButtonlessApplicationAtAddressPlusOneAlone() async throws {
        // Another board running its buttonless application at the named address + 1.
        let run = try await DFUSimRun.run(devices: ["buttonless,address=\(Self.next),sd_id=0xB7,sd_id_after=0x101"],
                                          ["upload", UploadCommandTests.package("secure-sd-bl-app.zip"), "-d", Self.named] + Self.scan)
        #expect(run.status == 2, "device not found: \(run.error)")
        #expect(!run.error.contains("updated"), "\(run.error)")
        #expect(run.imageSize(Self.next, "application") == 1, "its factory application (one byte, A5) is still there")
        #expect(run.imageSize(Self.next, "softdevice") == nil && run.imageSize(Self.next, "bootloader") == nil)
        #expect(Self.stats(run, Self.next)["connections"] as? Int == 0, "never connected, never switched")
    }

    @Test func triggerNamingAnAbsentAddressLeavesTheButtonlessApplicationAtAddressPlusOneAlone() async throws {
        let run = try await DFUSimRun.run(devices: ["buttonless,address=\(Self.next),sd_id=0xB7"],
                                          ["trigger", "-d", Self.named] + Self.scan)
        #expect(run.status == 2, "device not found: \(run.error)")
        #expect(run.output.isEmpty, "no bootloader reported: \(run.output)")
        #expect(Self.stats(run, Self.next)["connections"] as? Int == 0, "never connected, never switched")
    }

    @Test func aDeviceLeftInItsBootloaderAtAddressPlusOneIsUpdatedAndTheResultNamesThatAddress() async throws {
        // The documented recovery: the device named is absent, its DFU bootloader waits at address + 1.
        let run = try await DFUSimRun.run(devices: ["secure,address=\(Self.next),sd_id=0xB7"],
                                          ["upload", UploadCommandTests.app, "-d", Self.named] + Self.scan)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.next, "application") == 4096)
        #expect(run.error.split(separator: "\n").last?.hasPrefix("\(Self.named) (\(Self.next)): updated in ") == true, "\(run.error)")
    }

    @Test func theDeviceNamedIsUpdatedRatherThanABootloaderAtAddressPlusOne() async throws {
        // Both in their bootloaders: the device named (Legacy, which keeps its address) and, listed first,
        // another board's Secure bootloader at the address + 1.
        let run = try await DFUSimRun.run(devices: ["secure,address=\(Self.next),sd_id=0xB7", "legacy,address=\(Self.named)"],
                                          ["upload", UploadCommandTests.package("legacy-app.zip"), "-d", Self.named])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.named, "application") == 3000)
        #expect(run.imageSize(Self.next, "application") == 1, "the bootloader at the address + 1 got nothing")
        #expect(Self.stats(run, Self.next)["connections"] as? Int == 0)
        #expect(run.error.split(separator: "\n").last?.hasPrefix("\(Self.named): updated in ") == true, "\(run.error)")
    }

    @Test func aButtonlessApplicationAtTheNamedAddressIsSwitchedAndUpdated() async throws {
        // The normal jump: the application at the address named, its bootloader at address + 1.
        let run = try await DFUSimRun.run(devices: ["buttonless,address=\(Self.named),sd_id=0xB7,sd_id_after=0x101"],
                                          ["upload", UploadCommandTests.package("secure-sd-bl-app.zip"), "-d", Self.named])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.named, "softdevice") != nil && run.imageSize(Self.named, "bootloader") != nil)
        #expect(run.imageSize(Self.named, "application") ?? 0 > 1)
        #expect(run.error.split(separator: "\n").last?.hasPrefix("\(Self.named): updated in ") == true, "\(run.error)")
    }

    // MARK: - Ambiguous names

    @Test(arguments: [["reset"], ["images"], ["confirm"], ["trigger"], ["erase"]])
    func aNameTwoSMPDevicesAdvertiseIsRefusedByEveryCommand(_ command: [String]) async throws {
        // Every nRF Connect SDK sample advertises "Zephyr"; two of them at C0:FF:EE:00:00:10 and …:20.
        let run = try await DFUSimRun.run(devices: ["smp", "smp"], command + ["-d", "Zephyr"] + Self.scan)
        #expect(run.status == 64, "\(run.error)")
        let last = run.error.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("dfu: the name 'Zephyr' is advertised by 2 devices (C0:FF:EE:00:00:10, C0:FF:EE:00:00:20); "
            + "give the address of the one to "), "\(run.error)")
        for address in ["C0:FF:EE:00:00:10", "C0:FF:EE:00:00:20"] {
            let stats = Self.stats(run, address)
            #expect(stats["connections"] as? Int == 0 && stats["smp_resets"] as? Int == 0, "\(address): \(stats)")
        }
    }
}
