import Foundation
import Testing

/// The options whose effect needs more of the stand-in than ``DFUSimEndToEndTests`` uses: how
/// packets travel over the bus, custom UUIDs, devices without a DFU Version characteristic,
/// timing, and resuming across two runs. Each test runs the built `dfu` under `dfu-sim run` and
/// would fail if the option had no effect.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimOptionTests {
    static let app = UploadCommandTests.package("secure-app-4096.zip")
    static let address = "C0:FF:EE:00:00:10"
    static let buttonless = "buttonless,address=\(address),sd_id=0xB7,sd_id_after=0x101"

    @Test func noAcquireSendsEveryPacketWithWriteValue() async throws {
        let expected = try await DFUSimRun.packageCRCs(Self.app)["application"]
        // Without the option dfu takes sockets from AcquireWrite and AcquireNotify ...
        let acquiring = try DFUSimRun.run(devices: [Self.buttonless], ["upload", Self.app, "-d", Self.address])
        #expect(acquiring.status == 0, "\(acquiring.error)")
        #expect(acquiring.stat(Self.address, "acquire_write") ?? 0 >= 1)
        #expect(acquiring.stat(Self.address, "write_value_commands") == 0)
        // ... with it, the stand-in hands out none and sees every packet (4096 bytes in at most 244
        // per write: at least 17) as WriteValue type=command, notifications as StartNotify.
        let run = try DFUSimRun.run(devices: [Self.buttonless], ["upload", Self.app, "-d", Self.address, "--no-acquire"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.stat(Self.address, "acquire_write") == 0)
        #expect(run.stat(Self.address, "acquire_notify") == 0)
        #expect(run.stat(Self.address, "write_value_commands") ?? 0 >= 17)
        #expect(run.stat(Self.address, "start_notify") ?? 0 >= 1)
        #expect(run.imageSize(Self.address, "application") == 4096)
        #expect(expected != nil && run.imageCRC(Self.address, "application") == expected, "byte-exact image")
    }

    @Test func noAcquireAlsoAppliesToTrigger() throws {
        let run = try DFUSimRun.run(devices: [Self.buttonless], ["trigger", "-d", Self.address, "--no-acquire"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.stat(Self.address, "acquire_notify") == 0)
        #expect(run.stat(Self.address, "start_notify") ?? 0 >= 1, "the buttonless indication through StartNotify")
    }

    /// The custom UUIDs of ``customDevice``, by `--uuid` role.
    static let customUUIDs = [
        "secure-service": "ABCD",
        "secure-control-point": "11110001-2222-3333-4444-555555555555",
        "secure-packet": "11110002-2222-3333-4444-555555555555",
        "buttonless-without-bonds": "11110003-2222-3333-4444-555555555555",
    ]
    /// A buttonless device whose application and bootloader use ``customUUIDs``.
    static let customDevice = "buttonless,address=\(address),sd_id=0xB7,"
        + customUUIDs.sorted { $0.key < $1.key }.map { "uuid.\($0.key)=\($0.value)" }.joined(separator: ",")

    @Test func uuidDrivesADeviceWithCustomUUIDs() async throws {
        let expected = try await DFUSimRun.packageCRCs(Self.app)["application"]
        let uuids = Self.customUUIDs.sorted { $0.key < $1.key }.flatMap { ["--uuid", "\($0.key)=\($0.value)"] }
        let run = try DFUSimRun.run(devices: [Self.customDevice], ["upload", Self.app, "-d", Self.address] + uuids)
        #expect(run.status == 0, "\(run.error)")
        #expect(expected != nil && run.imageCRC(Self.address, "application") == expected, "byte-exact image")
    }

    @Test func withoutUUIDTheCustomDeviceOffersNoDFU() throws {
        let run = try DFUSimRun.run(devices: [Self.customDevice], ["upload", Self.app, "-d", Self.address])
        #expect(run.status == 1, "exit 1: no usable DFU service; \(run.error)")
        #expect(run.error.contains("the device does not offer DFU"), "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 1, "the factory application stays")
    }

    @Test(arguments: ["secure-service", "secure-control-point", "secure-packet", "buttonless-without-bonds"])
    func everyCustomRoleIsNeeded(_ missing: String) throws {
        // All but one role given: the device is not updated.
        let uuids = Self.customUUIDs.filter { $0.key != missing }.sorted { $0.key < $1.key }
            .flatMap { ["--uuid", "\($0.key)=\($0.value)"] }
        let run = try DFUSimRun.run(devices: [Self.customDevice], ["upload", Self.app, "-d", Self.address, "--retries", "0"] + uuids)
        #expect(run.status == 1, "exit 1: no usable DFU service; \(run.error)")
        #expect(run.imageSize(Self.address, "application") == 1, "\(run.error)")
    }

    /// A Legacy bootloader (SDK ≤ 6.1 style) without DFU Version characteristic that also serves
    /// Device Information: by the service-count rule it looks like an application.
    static let bootloaderLookingLikeAnApp = "legacy,address=\(address),legacy_version=none,bl_extra_service=180A"

    @Test func forceDFUUploadsToABootloaderWithoutVersionCharacteristicDirectly() async throws {
        let package = UploadCommandTests.package("legacy-app.zip")
        let expected = try await DFUSimRun.packageCRCs(package)["application"]
        let run = try DFUSimRun.run(devices: [Self.bootloaderLookingLikeAnApp],
                                    ["upload", package, "-d", Self.address, "--force-dfu"])
        #expect(run.status == 0, "\(run.error)")
        #expect(!run.error.contains("entering bootloader"), "no jump: \(run.error)")
        #expect(run.stat(Self.address, "connections") == 1)
        #expect(expected != nil && run.imageCRC(Self.address, "application") == expected, "byte-exact image")
    }

    @Test func withoutForceDFUTheBootloaderIsTakenForAnApplication() throws {
        // The documented behaviour: a jump is attempted (Start DFU 01 04 as to an application), the
        // device does not reset, and when it still looks like an application dfu stops with exit 1
        // and points to --force-dfu. (It waits for the reset for the 10 s response timeout.)
        let run = try DFUSimRun.run(devices: [Self.bootloaderLookingLikeAnApp],
                                    ["upload", UploadCommandTests.package("legacy-app.zip"), "-d", Self.address])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("part 1/1 entering bootloader"), "\(run.error)")
        #expect(run.error.contains("did not come back as a bootloader"), "\(run.error)")
        #expect(run.error.contains("--force-dfu"))
        #expect(run.imageSize(Self.address, "application") == 1, "the factory application stays")
    }

    @Test func objectDelayWaitsBeforeEveryDataObject() throws {
        // secure-app-4097: two data objects (4096 + 4 bytes). The stand-in measures, for each Create
        // data object, the real time until its first packet.
        let package = UploadCommandTests.package("secure-app-4097.zip")
        let device = "secure,address=\(Self.address),sd_id=0xB7"
        let plain = try DFUSimRun.run(devices: [device], ["upload", package, "-d", Self.address])
        #expect(plain.status == 0, "\(plain.error)")
        let plainWaits = plain.list(Self.address, "data_object_waits_ms")
        // Without the option the flash pacing alone holds packets back (the default 400 ms first
        // object delay is covered by it), so some object starts at once.
        #expect(plainWaits.count == 2 && plainWaits.contains { $0 < 300 }, "\(plainWaits)")
        let delayed = try DFUSimRun.run(devices: [device], ["upload", package, "-d", Self.address, "--object-delay", "600"])
        #expect(delayed.status == 0, "\(delayed.error)")
        let waits = delayed.list(Self.address, "data_object_waits_ms")
        #expect(waits.count == 2 && waits.allSatisfy { $0 >= 600 }, "every object waits 600 ms: \(waits)")
        #expect(delayed.imageSize(Self.address, "application") == 4100)
    }

    @Test func connectTimeoutBoundsASlowConnect() throws {
        // Every Connect to this device takes 1.5 s.
        let device = "secure,address=\(Self.address),sd_id=0xB7,connect_delay_ms=1500"
        let short = try DFUSimRun.run(devices: [device],
                                      ["upload", Self.app, "-d", Self.address, "--connect-timeout", "0.5", "--retries", "0"])
        #expect(short.status == 2, "exit 2: could not be connected; \(short.error)")
        #expect(short.stat(Self.address, "connections") == 0)
        #expect(short.seconds < 6, "\(short.seconds) s")
        let long = try DFUSimRun.run(devices: [device],
                                     ["upload", Self.app, "-d", Self.address, "--connect-timeout", "3", "--retries", "0"])
        #expect(long.status == 0, "\(long.error)")
        #expect(long.imageSize(Self.address, "application") == 4096)
    }
}
