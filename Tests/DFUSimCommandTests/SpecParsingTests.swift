import DBus
import DFUCore
@testable import DFUSimCommand
@testable import DFUSimStandIn
import DFUSimulator
import Testing

/// `--device`, `--link`, `--fault` and the command line, parsed strictly.
@Suite struct SpecParsingTests {
    struct DeviceCase: Sendable, CustomTestStringConvertible {
        let spec: String
        let kind: SimulatedDeviceKind
        let address: String
        let startsInBootloader: Bool
        var testDescription: String { spec }
    }

    @Test(arguments: [
        DeviceCase(spec: "secure", kind: .secure, address: "C0:FF:EE:00:00:10", startsInBootloader: true),
        DeviceCase(
            spec: "legacy,address=aa:bb:cc:dd:ee:01", kind: .legacy, address: "AA:BB:CC:DD:EE:01",
            startsInBootloader: true),
        DeviceCase(spec: "buttonless", kind: .buttonless, address: "C0:FF:EE:00:00:10", startsInBootloader: false),
        DeviceCase(
            spec: "buttonless-bonded,name=Bonded", kind: .buttonlessBonded, address: "C0:FF:EE:00:00:10",
            startsInBootloader: false),
        DeviceCase(
            spec: "buttonless-experimental", kind: .buttonlessExperimental, address: "C0:FF:EE:00:00:10",
            startsInBootloader: false),
        DeviceCase(
            spec: "legacy-app,legacy_version=0.5", kind: .legacyApp, address: "C0:FF:EE:00:00:10",
            startsInBootloader: false),
    ])
    func eachKindParsesWithItsAddress(_ entry: DeviceCase) throws {
        let spec = try SimulatedDeviceSpec(parsing: entry.spec)
        #expect(spec.kind == entry.kind)
        #expect(spec.profile.address.description == entry.address)
        #expect(spec.kind.startsInBootloader == entry.startsInBootloader)
    }

    @Test func keysReachTheSimulatedDevice() throws {
        let spec = try SimulatedDeviceSpec(
            parsing:
                "secure,name=Boot,hw_version=0x34,sd_id=0xB7,sd_id_after=0x100,app_version=3,signature=required,rssi=-70,service_changed=yes",
            index: 2)
        guard case .secure(let configuration) = spec.profile.bootloader else {
            Issue.record("not a Secure bootloader")
            return
        }
        #expect(configuration.defaultName == "Boot")
        #expect(configuration.hardwareVersion == 0x34)
        #expect(configuration.requiresSignature)
        #expect(spec.storage.softdeviceID == 0xB7)
        #expect(spec.storage.softdeviceIDAfterUpdate == 0x100)
        #expect(spec.storage.applicationVersion == 3)
        #expect(spec.rssi == -70)
        #expect(spec.indicatesServiceChanged)
        #expect(spec.connectDelay == .zero, "Connect completes at once unless connect_delay_ms is given")
        // The third device's default address.
        #expect(spec.profile.address.description == "C0:FF:EE:00:00:30")
    }

    @Test func legacyVersionNoneRemovesTheCharacteristicFromApplicationAndBootloader() throws {
        let spec = try SimulatedDeviceSpec(parsing: "legacy-app,legacy_version=none,bl_extra_service=180A")
        guard case .legacy(let bootloader) = spec.profile.bootloader, case .legacy(let app) = spec.profile.application
        else {
            Issue.record("not a Legacy application with a Legacy bootloader")
            return
        }
        #expect(bootloader.version == nil)
        #expect(!app.hasVersionCharacteristic)
        #expect(bootloader.otherServices.map(\.uuid) == ["0000180A-0000-1000-8000-00805F9B34FB"])
        let versioned = try SimulatedDeviceSpec(parsing: "legacy-app")
        if case .legacy(let app) = versioned.profile.application { #expect(app.hasVersionCharacteristic) }
    }

    @Test func uuidKeysGiveTheFirmwareCustomUUIDs() throws {
        let spec = try SimulatedDeviceSpec(
            parsing: "buttonless,uuid.secure-service=ABCD,UUID.Buttonless_Without_Bonds=11110003-2222-3333-4444-55555555555a")
        #expect(spec.uuids.secureService == "0000ABCD-0000-1000-8000-00805F9B34FB", "16-bit form expanded")
        #expect(spec.uuids.buttonlessWithoutBonds == "11110003-2222-3333-4444-55555555555A", "any case, - or _")
        #expect(spec.uuids.securePacket == DFUServiceUUIDs().securePacket, "roles not given keep Nordic's")
        guard case .secure(let bootloader) = spec.profile.bootloader, case .buttonless(let app) = spec.profile.application
        else {
            Issue.record("not a buttonless device with a Secure bootloader")
            return
        }
        #expect(bootloader.uuids == spec.uuids)
        #expect(app.uuids == spec.uuids)
    }

    @Test(arguments: [
        ("", "empty field"),
        ("secure,legacy", "exactly one KIND"),
        ("toaster", "unknown device kind 'toaster'"),
        ("secure,address=C0:FF", "is not AA:BB:CC:DD:EE:FF"),
        ("secure,colour=red", "unknown key 'colour'"),
        ("secure,name=a,name=b", "'name' is given twice"),
        ("secure,hw_version=many", "hw_version=many is not a number"),
        ("secure,rssi=10", "rssi=10 must be negative dBm"),
        ("legacy,legacy_version=8", "legacy_version=8 must be MAJOR.MINOR or none"),
        ("secure,service_changed=perhaps", "service_changed=perhaps is not yes or no"),
        ("secure,uuid.secure-thing=FE59", "uuid.secure_thing is not a role"),
        ("secure,uuid.secure-service=XYZ", "uuid.secure_service=XYZ is not a UUID"),
        ("secure,bl_extra_service=180A", "bl_extra_service applies to Legacy bootloaders"),
        ("secure,connect_delay_ms=-1", "connect_delay_ms=-1 must be 0 to 600000"),
        ("legacy,bl_extra_service=nope", "bl_extra_service=nope is not a UUID"),
    ])
    func badDeviceSpecsSayWhatIsWrong(spec: String, message: String) {
        #expect {
            _ = try SimulatedDeviceSpec(parsing: spec)
        } throws: { error in
            (error as? StandInSpecError)?.message.contains(message) == true
        }
    }

    @Test func linkSpecSetsTheModel() throws {
        let link = try StandInLink(parsing: "mtu=185,interval_ms=7.5,phy=2m,packets_per_event=4,connect_timeout_ms=100")
        #expect(link.model.mtu == 185)
        #expect(link.model.maximumWriteLength == 182)
        #expect(link.model.connectionInterval == .microseconds(7500))
        #expect(link.model.phy == .le2M)
        #expect(link.model.packetsPerEvent == 4)
        #expect(link.connectTimeout == .milliseconds(100))
        #expect(!link.pacesSMP)
        #expect(try StandInLink(parsing: "smp_paced=yes").pacesSMP)
        #expect(throws: StandInSpecError("unknown key 'speed' in --link speed=9")) {
            try StandInLink(parsing: "speed=9")
        }
    }

    @Test func bluetoothdSpecSetsVersionCacheAndTemporaryTimeout() throws {
        let defaults = StandInHost()
        #expect(defaults.version == .v5_66 && defaults.cache == .always && defaults.temporaryTimeout == .seconds(30))
        let host = try StandInHost(parsing: "version=5.80,cache=yes,temporary_timeout_s=2")
        #expect(host.version == .v5_80 && host.cache == .yes && host.temporaryTimeout == .seconds(2))
        #expect(try StandInHost(parsing: "version=5.55").version == .v5_55)
        #expect(throws: StandInSpecError("version=5.47 must be one of 5.55, 5.66, 5.80, 5.87")) {
            try StandInHost(parsing: "version=5.47")
        }
        #expect(throws: StandInSpecError("cache=maybe must be always, yes or no")) {
            try StandInHost(parsing: "cache=maybe")
        }
        #expect(throws: StandInSpecError("unknown key 'caching' in --bluetoothd caching=no")) {
            try StandInHost(parsing: "caching=no")
        }
        let arguments = try DFUSimArguments(["serve", "--bluetoothd", "cache=no"])
        #expect(arguments.configuration.host.cache == .no)
    }

    @Test func faultSpecsAccumulate() throws {
        var faults = StandInFaults()
        try faults.add(parsing: "drop-packet=3:7")
        try faults.add(parsing: "corrupt-packet=5")
        try faults.add(parsing: "disconnect-after-bytes=4096")
        try faults.add(parsing: "disconnect-at=0x04:2")
        try faults.add(parsing: "fail-connections=2")
        try faults.add(parsing: "no-stale-cache")
        try faults.add(parsing: "drop-response=2:9")
        try faults.add(parsing: "adapter-vanish-after-bytes=100")
        try faults.add(parsing: "restart-after-bytes=0")
        try faults.add(parsing: "quit-after-bytes=4880")
        try faults.add(parsing: "power-off-after-bytes=244")
        try faults.add(parsing: "late-response=3:250")
        #expect(faults.lateResponses == [3: .milliseconds(250)])
        #expect(throws: StandInSpecError.self) { try faults.add(parsing: "late-response=250") }
        #expect(faults.lateAnnouncement == nil)
        try faults.add(parsing: "late-announcement-ms=1500")
        #expect(faults.lateAnnouncement == .milliseconds(1500))
        #expect(throws: StandInSpecError.self) { try faults.add(parsing: "late-announcement-ms") }
        #expect(faults.droppedResponses == [2, 9])
        #expect(faults.adapterVanishesAfterPacketBytes == 100)
        #expect(faults.hostRestartsAfterPacketBytes == 0)
        #expect(faults.hostQuitsAfterPacketBytes == 4880)
        #expect(faults.devicePowersOffAfterPacketBytes == 244)
        #expect(faults.link.droppedPackets == [3, 7])
        #expect(faults.link.corruptedPackets == [5])
        #expect(faults.link.disconnectAfterPacketBytes == 4096)
        #expect(faults.link.disconnectAtRequest == SimulatedFaults.RequestTrigger(opCode: 4, occurrence: 2))
        #expect(faults.link.failedConnections == 2)
        #expect(!faults.cachesServices)
        #expect(throws: StandInSpecError.self) { try faults.add(parsing: "drop-packet=0") }
        #expect(throws: StandInSpecError.self) { try faults.add(parsing: "drop-response") }
        #expect(throws: StandInSpecError.self) { try faults.add(parsing: "restart-after-bytes=-1") }
    }

    @Test func commandLineSplitsOptionsFromTheCommand() throws {
        let arguments = try DFUSimArguments([
            "run", "--device", "secure", "--device=legacy", "--report", "/tmp/r.json", "--adapter-off", "--",
            "dfu", "upload", "--device", "X",
        ])
        #expect(arguments.mode == .run(command: ["dfu", "upload", "--device", "X"]))
        #expect(arguments.configuration.devices.map(\.kind) == [.secure, .legacy])
        #expect(
            arguments.configuration.devices.map(\.profile.address.description) == [
                "C0:FF:EE:00:00:10", "C0:FF:EE:00:00:20",
            ])
        #expect(arguments.reportPath == "/tmp/r.json")
        #expect(!arguments.configuration.powered)
        #expect(arguments.configuration.hasAdapter)
        #expect(try !DFUSimArguments(["serve", "--no-adapter"]).configuration.hasAdapter)
        #expect(throws: StandInSpecError("two devices have the address C0:FF:EE:00:00:10")) {
            try DFUSimArguments(["serve", "--device", "secure", "--device", "legacy,address=C0:FF:EE:00:00:10"])
        }
    }

    @Test(arguments: [
        ("fe59", "0000fe59-0000-1000-8000-00805f9b34fb"), ("0000FE59", "0000fe59-0000-1000-8000-00805f9b34fb"),
        ("8EC90001-F315-4F60-9FB8-838830DAEA50", "8ec90001-f315-4f60-9fb8-838830daea50"),
    ])
    func discoveryFilterUUIDsAreExpandedTo128Bits(given: String, expected: String) {
        #expect(DiscoveryFilter.fullUUID(given) == expected)
    }

    @Test(arguments: [
        ["Colour": DBusValue.string("red")],
        ["UUIDs": DBusValue.stringArray(["not-a-uuid"])],
        ["Transport": DBusValue.string("radio")],
        ["RSSI": DBusValue.string("-60")],
    ])
    func discoveryFilterRejectsWhatBluetoothdRejects(filter: [String: DBusValue]) {
        #expect(
            throws: DBusError(name: "org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call")
        ) {
            _ = try DiscoveryFilter(.stringVariantDictionary(filter))
        }
    }
}
