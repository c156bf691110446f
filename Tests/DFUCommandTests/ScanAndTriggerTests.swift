import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// `dfu scan` and `dfu trigger` over simulated devices.
@Suite struct ScanAndTriggerTests {
    static let application = "C0:FF:EE:00:00:10"
    static let bootloader = "C0:FF:EE:00:00:21"
    static let plain = "C0:FF:EE:00:00:30"

    /// A buttonless application that advertises FE59, a device waiting in its bootloader (advertising
    /// at its address + 1), and a device without DFU.
    static func rig() -> SimulatedRig {
        let fe59 = DFUServiceUUIDs().secureService
        let app = SimulatedRig.secureDevice(application, application: { $0.otherServices.append(.other(fe59)) })
        let profile = SimulatedRig.secureDevice("C0:FF:EE:00:00:20").profile
        let waiting = SimulatedPeripheral(profile: profile, startInBootloader: true)
        var other = SimulatedRig.secureDevice(plain)
        other = SimulatedPeripheral(profile: SimulatedDeviceProfile(address: other.profile.address, bootloader: other.profile.bootloader,
                                                                    application: .plain), storage: other.storage)
        return SimulatedRig([application: app, bootloader: waiting, plain: other])
    }

    @Test func scanListsDFUDevicesWithTheirMode() async {
        let run = await Self.rig().dfu(["scan", "--timeout", "2"])
        #expect(run.code == .success, "\(run.error)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ADDRESS") == true)
        #expect(lines.contains { $0.hasPrefix(Self.application) && $0.contains("Nordic_App") && $0.hasSuffix("application, buttonless") })
        #expect(lines.contains { $0.hasPrefix(Self.bootloader) && $0.contains("DfuTarg") && $0.hasSuffix("Secure DFU bootloader") })
        #expect(!run.output.contains(Self.plain))
    }

    @Test func scanAllListsEveryDevice() async throws {
        let run = await Self.rig().dfu(["scan", "--all", "--json"])
        #expect(run.code == .success, "\(run.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 3)
        let modes = Dictionary(uniqueKeysWithValues: devices.compactMap { device in
            (device["address"] as? String).map { ($0, device["mode"] as? String ?? "-") }
        })
        #expect(modes[Self.application] == "application-buttonless")
        #expect(modes[Self.bootloader] == "secure-bootloader")
        #expect(modes[Self.plain] == "-")
        #expect(devices.first?["rssi"] as? Int == -40)
    }

    /// A Legacy application of SDK 6.1 or older has no DFU Version characteristic; beside its other services the
    /// Legacy DFU service means an application, as the upload judges it (it switches the device into its bootloader
    /// first). `dfu scan` used to call it a bootloader.
    @Test func scanNamesALegacyApplicationWithoutVersionAsTheUploadWouldTreatIt() async throws {
        var app = SimulatedLegacyApplication(hasVersionCharacteristic: false)
        app.advertisesDFUService = true
        let base = UploadOptionEffectTests.legacyAppWithoutVersion
        let device = SimulatedPeripheral(
            profile: SimulatedDeviceProfile(address: base.profile.address, bootloader: base.profile.bootloader, application: .legacy(app)),
            storage: base.storage)
        let address = device.profile.address.description
        let run = await SimulatedRig([address: device]).dfu(["scan", "--json", "--timeout", "2"])
        #expect(run.code == .success, "\(run.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.first { $0["address"] as? String == address }?["mode"] as? String == "legacy-application", "\(run.output)")
    }

    @Test func scanWithoutABluetoothStackIs69() async {
        let run = await RecordedRun.dfu("scan")
        #expect(run.code == .unavailable)
    }

    @Test func triggerSwitchesTheApplicationAndPrintsTheBootloader() async {
        let rig = Self.rig()
        let run = await rig.dfu(["trigger", "--device", Self.application, "--alt-name", "RigBoot"])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.output == "C0:FF:EE:00:00:11 RigBoot\n")
        #expect(rig.transport(Self.application)?.peripheral().inBootloader == true)
        #expect(rig.packetBytes(Self.application) == 0, "nothing is uploaded")
    }

    @Test func triggerOnABootloaderSaysItIsAlreadyThere() async {
        let run = await Self.rig().dfu(["trigger", "-d", Self.bootloader, "--json"])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.output == "{\"bootloader\":\"C0:FF:EE:00:00:21\",\"name\":\"DfuTarg\",\"switched\":false}\n")
    }

    @Test func triggerOnADeviceWithoutDFUIs1() async {
        let run = await Self.rig().dfu(["trigger", "-d", Self.plain])
        #expect(run.code == .deviceRejected, "\(run.error)")
        #expect(run.error.contains("the device does not offer DFU"))
    }

    @Test func triggerOnAnAbsentDeviceIs2() async {
        let run = await Self.rig().dfu(["trigger", "-d", "C0:FF:EE:00:00:99", "--scan-timeout", "1"])
        #expect(run.code == .deviceNotFound, "\(run.error)")
    }

    @Test func triggerNeedsADevice() async {
        let run = await RecordedRun.dfu("trigger")
        #expect(run.code == .usage)
        #expect(run.error == "dfu: missing --device ADDRESS|NAME (see 'dfu trigger --help')\n")
    }
}
