import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Synchronization
import Testing

/// Each option of `dfu upload` changes what the simulated device sees (its trace and its flash).
@Suite struct UploadOptionEffectTests {
    static let device = SimulatedRig.firstAddress
    static let app = UploadCommandTests.app
    static let multiPart = UploadCommandTests.package("secure-sd-bl-app.zip")

    static func run(_ extra: [String], package: String = app, device: SimulatedPeripheral = SimulatedRig.secureDevice(),
                    faults: SimulatedFaults = SimulatedFaults()) async -> (SimulatedRig, RecordedRun) {
        let rig = SimulatedRig([Self.device: device], faults: [Self.device: faults])
        let run = await rig.dfu(["upload", package, "--device", Self.device] + extra)
        return (rig, run)
    }

    @Test(arguments: [
        (["upload", UploadCommandTests.app], true), (["upload", UploadCommandTests.app, "--no-acquire"], false),
        (["trigger"], true), (["trigger", "--no-acquire"], false),
    ] as [([String], Bool)])
    func noAcquireReachesTheTransportProvider(_ arguments: [String], _ acquires: Bool) async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let asked = Mutex<[LinkPreferences]>([])
        let base = rig.provider
        let provider = TransportProvider(openLink: { adapter, device, preferences in
            asked.withLock { $0.append(preferences) }
            return try await base.open(adapter, device, preferences: preferences)
        })
        let run = await RecordedRun.dfu(arguments: arguments + ["--device", Self.device], transports: provider)
        #expect(run.code == .success, "\(run.error)")
        #expect(asked.withLock { $0 } == [LinkPreferences(acquiresSockets: acquires)])
    }

    /// The PRN values the bootloader was asked for (Set PRN: `02 <u16 LE>`).
    static func prnRequests(_ rig: SimulatedRig) -> [UInt16] {
        rig.writes(to: .secureControlPoint).filter { $0.first == 0x02 && $0.count == 3 }
            .map { UInt16($0[1]) | UInt16($0[2]) << 8 }
    }

    @Test(arguments: [(["--prn", "4"], [0, 4]), (["--prn", "0"], [0]), ([], [0, 12])] as [([String], [UInt16])])
    func prnIsWhatTheBootloaderIsAskedFor(_ arguments: [String], _ expected: [UInt16]) async {
        let (rig, run) = await Self.run(arguments)
        #expect(run.code == .success, "\(run.error)")
        // The init packet always goes without PRNs; firmware with the chosen value (0 is not sent twice).
        #expect(Self.prnRequests(rig) == expected)
    }

    @Test func scopeApplicationSendsOnlyTheApplication() async throws {
        let (rig, run) = await Self.run(["--scope", "application"], package: Self.multiPart,
                                        device: SimulatedRig.secureDevice(softdeviceID: 0x101))
        #expect(run.code == .success, "\(run.error)")
        let storage = try #require(rig.transport()?.peripheral().storage)
        #expect(storage.application?.count == 3000)
        #expect(storage.softdevice == nil)
        #expect(storage.bootloader == nil)
        #expect(run.errorLines.last?.contains(", 3000 bytes sent (") == true && run.errorLines.last?.hasSuffix(" (application)") == true)
    }

    @Test func scopeSystemSendsOnlyTheSystemPart() async throws {
        let (rig, run) = await Self.run(["--scope", "system"], package: Self.multiPart)
        #expect(run.code == .success, "\(run.error)")
        let storage = try #require(rig.transport()?.peripheral().storage)
        #expect(storage.bootloader?.count == 5000)
        #expect(storage.application?.count != 3000)
        #expect(run.errorLines.last?.hasSuffix("(softdevice_bootloader)") == true)
    }

    @Test func scopeAllSendsBothPartsInOrder() async throws {
        let (rig, run) = await Self.run([], package: Self.multiPart)
        #expect(run.code == .success, "\(run.error)")
        let storage = try #require(rig.transport()?.peripheral().storage)
        #expect(storage.bootloader?.count == 5000)
        #expect(storage.application?.count == 3000)
        #expect(run.errorLines.last?.hasSuffix("(softdevice_bootloader, application)") == true)
    }

    static let customUUIDs: DFUServiceUUIDs = {
        var uuids = DFUServiceUUIDs()
        uuids.secureService = "0000ABCD-0000-1000-8000-00805F9B34FB"
        uuids.secureControlPoint = "11110001-2222-3333-4444-555555555555"
        uuids.securePacket = "11110002-2222-3333-4444-555555555555"
        uuids.buttonlessWithoutBonds = "11110003-2222-3333-4444-555555555555"
        return uuids
    }()

    static var customDevice: SimulatedPeripheral {
        SimulatedRig.secureDevice(configure: { $0.uuids = customUUIDs }, application: { $0.uuids = customUUIDs })
    }

    @Test func uuidDrivesADeviceWithCustomUUIDs() async {
        let (rig, run) = await Self.run(
            ["--uuid", "secure-service=ABCD", "--uuid", "secure-control-point=11110001-2222-3333-4444-555555555555",
             "--uuid", "secure-packet=11110002-2222-3333-4444-555555555555",
             "--uuid", "buttonless-without-bonds=11110003-2222-3333-4444-555555555555"],
            device: Self.customDevice)
        #expect(run.code == .success, "\(run.error)")
        #expect(rig.transport()?.peripheral().storage.application?.count == 4096)
    }

    @Test func withoutUUIDOptionsTheCustomDeviceOffersNoDFU() async {
        let (_, run) = await Self.run([], device: Self.customDevice)
        #expect(run.code == .deviceRejected)
        #expect(run.error.contains("the device does not offer DFU"), "\(run.error)")
    }

    /// The name written with buttonless opcode 0x02, if any.
    static func advertisingNames(_ rig: SimulatedRig) -> [String] {
        rig.writes(to: .buttonlessWithoutBonds).filter { $0.first == 0x02 }.map { String(decoding: $0.dropFirst(2), as: UTF8.self) }
    }

    @Test func altNameIsTheNameTheBootloaderIsGiven() async {
        let (rig, run) = await Self.run(["--alt-name", "RigBoot", "-v"])
        #expect(run.code == .success, "\(run.error)")
        #expect(Self.advertisingNames(rig) == ["RigBoot"])
        #expect(run.error.contains("connected to C0:FF:EE:00:00:02 (RigBoot)"))
    }

    @Test func noAltNameSendsNoRenameRequest() async {
        let (rig, run) = await Self.run(["--no-alt-name", "-v"])
        #expect(run.code == .success, "\(run.error)")
        #expect(Self.advertisingNames(rig).isEmpty)
        #expect(run.error.contains("connected to C0:FF:EE:00:00:02 (DfuTarg)"))
    }

    @Test func defaultAltNameIsARandomDfuName() async {
        let (rig, run) = await Self.run([])
        #expect(run.code == .success, "\(run.error)")
        let names = Self.advertisingNames(rig)
        #expect(names.count == 1)
        #expect(names.first?.hasPrefix("Dfu") == true)
    }

    @Test func bootloaderNameSelectsTheBootloaderByName() async {
        let (_, found) = await Self.run(["--no-alt-name", "--bootloader-name", "DfuTarg"])
        #expect(found.code == .success, "\(found.error)")
        let (_, missing) = await Self.run(["--no-alt-name", "--bootloader-name", "OtherBoot", "--scan-timeout", "2"])
        #expect(missing.code == .deviceNotFound)
        #expect(missing.error.contains("the bootloader (") && missing.error.contains("name OtherBoot"), "\(missing.error)")
        #expect(missing.error.contains("within 2 s"), "\(missing.error)")
    }

    @Test func bootloaderAddressSelectsTheBootloaderByAddress() async {
        let (_, found) = await Self.run(["--bootloader-address", "C0:FF:EE:00:00:02"])
        #expect(found.code == .success, "\(found.error)")
        let (_, missing) = await Self.run(["--bootloader-address", "C0:FF:EE:00:00:09", "--scan-timeout", "1.5"])
        #expect(missing.code == .deviceNotFound)
        #expect(missing.error.contains("address C0:FF:EE:00:00:09"), "\(missing.error)")
        #expect(missing.error.contains("within 1.5 s"), "\(missing.error)")
    }

    @Test func scanTimeoutBoundsTheSearchForAnAbsentDevice() async {
        let rig = SimulatedRig([:])
        let run = await rig.dfu(["upload", Self.app, "--device", "C0:FF:EE:00:00:42", "--scan-timeout", "3"])
        #expect(run.code == .deviceNotFound)
        #expect(run.error.contains("no device matching address C0:FF:EE:00:00:42 (or a DFU bootloader at C0:FF:EE:00:00:43) was found within 3 s"), "\(run.error)")
    }

    @Test func retriesRetryAFailedConnection() async {
        var faults = SimulatedFaults()
        faults.failedConnections = 1
        let (_, none) = await Self.run(["--retries", "0"], faults: faults)
        #expect(none.code == .deviceNotFound, "\(none.error)")
        let (_, one) = await Self.run(["--retries", "1"], faults: faults)
        #expect(one.code == .success, "\(one.error)")
    }

    @Test func connectTimeoutIsWhatAFailedConnectionCosts() async throws {
        var faults = SimulatedFaults()
        faults.failedConnections = 1
        // A failed attempt costs the connect timeout on the simulated clock.
        let (long, run) = await Self.run(["--retries", "0", "--connect-timeout", "7", "--json"], faults: faults)
        #expect(run.code == .deviceNotFound)
        #expect(run.output.contains("\"event\":\"error\""))
        let (short, _) = await Self.run(["--retries", "0", "--connect-timeout", "2"], faults: faults)
        let longElapsed = try #require(long.transport()?.clock.elapsed)
        let shortElapsed = try #require(short.transport()?.clock.elapsed)
        #expect(longElapsed >= .seconds(7) && longElapsed < .seconds(8), "\(longElapsed)")
        #expect(shortElapsed >= .seconds(2) && shortElapsed < .seconds(3), "\(shortElapsed)")
        let (_, verbose) = await Self.run(["--connect-timeout", "7", "-v"])
        #expect(verbose.error.contains("connect timeout 7.0 s"))
    }

    @Test func packetSizeCapsEveryPacket() async {
        let (rig, run) = await Self.run(["--packet-size", "100"])
        #expect(run.code == .success, "\(run.error)")
        let sizes = rig.writes(to: .securePacket).map(\.count)
        #expect(sizes.max() == 100)
        let (full, _) = await Self.run([])
        #expect(full.writes(to: .securePacket).map(\.count).max() == 244)
    }

    /// Virtual time from each data-object Create response to the next packet write.
    static func createToDataGaps(_ rig: SimulatedRig) -> [Duration] {
        let trace = rig.transport()?.trace ?? []
        var gaps: [Duration] = []
        var created: Duration?
        var creatingData = false
        for entry in trace {
            switch entry.event {
            case .notification(.secureControlPoint, let bytes) where bytes.starts(with: [0x60, 0x01, 0x01]):
                if creatingData { created = entry.time }
            case .write(.secureControlPoint, let bytes) where bytes.first == 0x01 && bytes.count > 1:
                creatingData = bytes[1] == 0x02
                created = nil
            case .write(.securePacket, _):
                if let start = created { gaps.append(entry.time - start) }
                created = nil
            default:
                break
            }
        }
        return gaps
    }

    @Test func firstObjectDelayWaitsBeforeTheFirstObjectOnly() async {
        let (rig, run) = await Self.run(["--first-object-delay", "900"], package: UploadCommandTests.package("secure-app-4097.zip"))
        #expect(run.code == .success, "\(run.error)")
        let gaps = Self.createToDataGaps(rig)
        #expect(gaps.count == 2)
        #expect(gaps.first.map { $0 >= .milliseconds(900) } == true, "\(gaps)")
        #expect(gaps.last.map { $0 < .milliseconds(400) } == true, "\(gaps)")
    }

    @Test func objectDelayWaitsBeforeEveryObject() async {
        let (rig, run) = await Self.run(["--first-object-delay", "0", "--object-delay", "700"],
                                        package: UploadCommandTests.package("secure-app-4097.zip"))
        #expect(run.code == .success, "\(run.error)")
        let gaps = Self.createToDataGaps(rig)
        #expect(gaps.count == 2)
        #expect(gaps.allSatisfy { $0 >= .milliseconds(700) }, "\(gaps)")
    }

    @Test func experimentalButtonlessIsUsedOnlyWhenAllowed() async {
        let experimental = SimulatedRig.secureDevice(variant: .experimental)
        let (_, refused) = await Self.run([], device: experimental)
        #expect(refused.code == .deviceRejected, "\(refused.error)")
        let (rig, allowed) = await Self.run(["--experimental-buttonless"], device: experimental)
        #expect(allowed.code == .success, "\(allowed.error)")
        #expect(rig.writes(to: .buttonlessExperimental) == [[0x01]])
    }

    @Test func keyRefusesAPackageWhoseSignatureDoesNotVerify() async {
        let other = TestData.fixtures.appendingPathComponent("keys/other-public.pem").path
        let (rig, refused) = await Self.run(["--key", other])
        #expect(refused.code == .badPackage)
        #expect(refused.errorLines.count == 1)
        #expect(rig.adapters.isEmpty, "no device is touched")
        let right = TestData.fixtures.appendingPathComponent("keys/test-public.pem").path
        let (_, accepted) = await Self.run(["--key", right])
        #expect(accepted.code == .success, "\(accepted.error)")
        let unsigned = UploadCommandTests.package("secure-app-4096-unsigned.zip")
        let (_, missing) = await Self.run(["--key", right], package: unsigned)
        #expect(missing.code == .badPackage)
    }

    static var legacyAppWithoutVersion: SimulatedPeripheral {
        let profile = SimulatedDeviceProfile(
            address: DFUDeviceAddress(SimulatedRig.firstAddress) ?? DFUDeviceAddress("00:00:00:00:00:01")!,
            bootloader: .legacy(LegacyBootloaderConfiguration()),
            application: .legacy(SimulatedLegacyApplication(hasVersionCharacteristic: false)))
        return SimulatedPeripheral(profile: profile, storage: SimulatedStorage(softdeviceID: 0x0080))
    }

    @Test func forceDFUTreatsALegacyDeviceWithoutVersionAsABootloader() async {
        let legacy = UploadCommandTests.package("legacy-app.zip")
        let (_, normal) = await Self.run([], package: legacy, device: Self.legacyAppWithoutVersion)
        let (_, forced) = await Self.run(["--force-dfu"], package: legacy, device: Self.legacyAppWithoutVersion)
        // Without --force-dfu the extra service makes it an application, switched first; with it the
        // first connection is taken for the bootloader and Start DFU goes there at once.
        #expect(normal.code == .success, "\(normal.error)")
        #expect(normal.errorLines.prefix(3) == ["\(Self.device): part 1/1 connecting", "\(Self.device): part 1/1 entering bootloader",
                                                "\(Self.device): part 1/1 starting"])
        #expect(forced.errorLines.prefix(2) == ["\(Self.device): part 1/1 connecting", "\(Self.device): part 1/1 starting"])
        #expect(!forced.error.contains("entering bootloader"))
    }
}
