import Foundation
import TestSupport
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
        let acquiring = try await DFUSimRun.run(devices: [Self.buttonless], ["upload", Self.app, "-d", Self.address])
        #expect(acquiring.status == 0, "\(acquiring.error)")
        #expect(acquiring.stat(Self.address, "acquire_write") ?? 0 >= 1)
        #expect(acquiring.stat(Self.address, "write_value_commands") == 0)
        // ... with it, the stand-in hands out none and sees every packet (4096 bytes in at most 244
        // per write: at least 17) as WriteValue type=command, notifications as StartNotify.
        let run = try await DFUSimRun.run(devices: [Self.buttonless], ["upload", Self.app, "-d", Self.address, "--no-acquire"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.stat(Self.address, "acquire_write") == 0)
        #expect(run.stat(Self.address, "acquire_notify") == 0)
        #expect(run.stat(Self.address, "write_value_commands") ?? 0 >= 17)
        // Every packet is sent with NO_REPLY_EXPECTED: the object's 17 packets are fewer than the 32 in a row
        // after which one asks for bluetoothd's answer, and the Calculate Checksum request after them vouches for them.
        #expect(run.stat(Self.address, "write_value_commands_answered") == 0)
        #expect(run.stat(Self.address, "start_notify") ?? 0 >= 1)
        #expect(run.imageSize(Self.address, "application") == 4096)
        #expect(expected != nil && run.imageCRC(Self.address, "application") == expected, "byte-exact image")
    }

    @Test func noAcquireAsksForAnAnswerAfterEvery32UnansweredPacketsInARow() async throws {
        // ATT MTU 23: the 4096-byte object goes in 20-byte packets, 205 of them before its Calculate Checksum
        // request. The 32nd, 64th, ... 192nd ask for bluetoothd's answer: 6 answered; the init packet's 7 packets
        // (its 140 bytes) and the object's last 13 are vouched for by the request after them.
        let run = try await DFUSimRun.run(
            devices: [Self.buttonless], simulator: ["--link", "mtu=23"], ["upload", Self.app, "-d", Self.address, "--no-acquire"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.stat(Self.address, "write_value_commands") == 7 + 205)
        #expect(run.stat(Self.address, "write_value_commands_answered") == 6)
        #expect(run.imageSize(Self.address, "application") == 4096)
    }

    @Test func noAcquireAlsoAppliesToTrigger() async throws {
        let run = try await DFUSimRun.run(devices: [Self.buttonless], ["trigger", "-d", Self.address, "--no-acquire"])
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
        let run = try await DFUSimRun.run(devices: [Self.customDevice], ["upload", Self.app, "-d", Self.address] + uuids)
        #expect(run.status == 0, "\(run.error)")
        #expect(expected != nil && run.imageCRC(Self.address, "application") == expected, "byte-exact image")
    }

    @Test func withoutUUIDTheCustomDeviceOffersNoDFU() async throws {
        let run = try await DFUSimRun.run(devices: [Self.customDevice], ["upload", Self.app, "-d", Self.address])
        #expect(run.status == 1, "exit 1: no usable DFU service; \(run.error)")
        #expect(run.error.contains("the device does not offer DFU"), "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 1, "the factory application stays")
    }

    @Test(arguments: ["secure-service", "secure-control-point", "secure-packet", "buttonless-without-bonds"])
    func everyCustomRoleIsNeeded(_ missing: String) async throws {
        // All but one role given: the device is not updated.
        let uuids = Self.customUUIDs.filter { $0.key != missing }.sorted { $0.key < $1.key }
            .flatMap { ["--uuid", "\($0.key)=\($0.value)"] }
        let run = try await DFUSimRun.run(devices: [Self.customDevice], ["upload", Self.app, "-d", Self.address, "--retries", "0"] + uuids)
        #expect(run.status == 1, "exit 1: no usable DFU service; \(run.error)")
        #expect(run.imageSize(Self.address, "application") == 1, "\(run.error)")
    }

    /// A kind of device with custom UUIDs for its roles, and what `dfu upload` needs besides `--uuid`.
    struct CustomUUIDCase: Sendable, CustomTestStringConvertible {
        let kind: String
        let uuids: [String: String]
        let package: String
        let image: Int
        var extra: [String] = []
        var testDescription: String { kind }
    }

    @Test(arguments: [
        CustomUUIDCase(kind: "legacy-app", uuids: [
            "legacy-service": "22220000-2222-3333-4444-555555555555",
            "legacy-control-point": "22220001-2222-3333-4444-555555555555",
            "legacy-packet": "22220002-2222-3333-4444-555555555555",
            "legacy-version": "22220004-2222-3333-4444-555555555555",
        ], package: "legacy-app.zip", image: 3000),
        CustomUUIDCase(kind: "buttonless-bonded", uuids: [
            "secure-service": "ABCE",
            "secure-control-point": "33330001-2222-3333-4444-555555555555",
            "secure-packet": "33330002-2222-3333-4444-555555555555",
            "buttonless-with-bonds": "33330004-2222-3333-4444-555555555555",
        ], package: "secure-app-4096.zip", image: 4096),
        CustomUUIDCase(kind: "buttonless-experimental", uuids: [
            "experimental-buttonless-service": "44440001-2222-3333-4444-555555555555",
            "experimental-buttonless-characteristic": "44440002-2222-3333-4444-555555555555",
            "secure-service": "ABCF",
            "secure-control-point": "44440011-2222-3333-4444-555555555555",
            "secure-packet": "44440012-2222-3333-4444-555555555555",
        ], package: "secure-app-4096.zip", image: 4096, extra: ["--experimental-buttonless"]),
    ])
    func uuidCoversTheLegacyAndOtherButtonlessRoles(_ entry: CustomUUIDCase) async throws {
        let pairs = entry.uuids.sorted { $0.key < $1.key }
        let device = "\(entry.kind),address=\(Self.address),sd_id=0xB7,"
            + pairs.map { "uuid.\($0.key)=\($0.value)" }.joined(separator: ",")
        let upload = ["upload", UploadCommandTests.package(entry.package), "-d", Self.address, "--retries", "0"] + entry.extra
        let withUUIDs = try await DFUSimRun.run(devices: [device], upload + pairs.flatMap { ["--uuid", "\($0.key)=\($0.value)"] })
        #expect(withUUIDs.status == 0, "\(withUUIDs.error)")
        #expect(withUUIDs.imageSize(Self.address, "application") == entry.image)
        let without = try await DFUSimRun.run(devices: [device], upload + ["--scan-timeout", "1"])
        #expect(without.status != 0, "\(without.error)")
        #expect(without.imageSize(Self.address, "application") == 1, "the factory application stays")
    }

    /// A Legacy bootloader (SDK ≤ 6.1 style) without DFU Version characteristic that also serves
    /// Device Information: by the service-count rule it looks like an application.
    static let bootloaderLookingLikeAnApp = "legacy,address=\(address),legacy_version=none,bl_extra_service=180A"

    @Test func forceDFUUploadsToABootloaderWithoutVersionCharacteristicDirectly() async throws {
        let package = UploadCommandTests.package("legacy-app.zip")
        let expected = try await DFUSimRun.packageCRCs(package)["application"]
        let run = try await DFUSimRun.run(devices: [Self.bootloaderLookingLikeAnApp],
                                    ["upload", package, "-d", Self.address, "--force-dfu"])
        #expect(run.status == 0, "\(run.error)")
        #expect(!run.error.contains("entering bootloader"), "no jump: \(run.error)")
        #expect(run.stat(Self.address, "connections") == 1)
        #expect(expected != nil && run.imageCRC(Self.address, "application") == expected, "byte-exact image")
    }

    @Test func withoutForceDFUTheBootloaderIsTakenForAnApplication() async throws {
        // The documented behaviour: a jump is attempted (Start DFU 01 04 as to an application), the
        // device does not reset, and when it still looks like an application dfu stops with exit 1
        // and points to --force-dfu. (It waits for the reset for the 10 s response timeout.)
        let run = try await DFUSimRun.run(devices: [Self.bootloaderLookingLikeAnApp],
                                    ["upload", UploadCommandTests.package("legacy-app.zip"), "-d", Self.address])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("part 1/1 entering bootloader"), "\(run.error)")
        #expect(run.error.contains("did not come back as a bootloader"), "\(run.error)")
        #expect(run.error.contains("--force-dfu"))
        #expect(run.imageSize(Self.address, "application") == 1, "the factory application stays")
    }

    @Test func objectDelayWaitsBeforeEveryDataObject() async throws {
        // secure-app-4097: two data objects (4096 + 4 bytes). The stand-in measures, for each Create
        // data object, the real time until its first packet.
        let package = UploadCommandTests.package("secure-app-4097.zip")
        let device = "secure,address=\(Self.address),sd_id=0xB7"
        let plain = try await DFUSimRun.run(devices: [device], ["upload", package, "-d", Self.address])
        #expect(plain.status == 0, "\(plain.error)")
        let plainWaits = plain.list(Self.address, "data_object_waits_ms")
        // Without the option the flash pacing alone holds packets back (the default 400 ms first
        // object delay is covered by it), so some object starts at once.
        #expect(plainWaits.count == 2 && plainWaits.contains { $0 < 300 }, "\(plainWaits)")
        let delayed = try await DFUSimRun.run(devices: [device], ["upload", package, "-d", Self.address, "--object-delay", "600"])
        #expect(delayed.status == 0, "\(delayed.error)")
        let waits = delayed.list(Self.address, "data_object_waits_ms")
        #expect(waits.count == 2 && waits.allSatisfy { $0 >= 600 }, "every object waits 600 ms: \(waits)")
        #expect(delayed.imageSize(Self.address, "application") == 4100)
    }

    @Test func connectTimeoutBoundsASlowConnect() async throws {
        // Every Connect to this device takes 1.5 s (times the sanitizers' scale: a 0.5 s timeout that fires a second
        // late under ThreadSanitizer let the slow connect complete first).
        let delay = 1500 * TestTime.scale
        let device = "secure,address=\(Self.address),sd_id=0xB7,connect_delay_ms=\(delay)"
        let (short, dfuSeconds) = try await DFUSimRun.timed(devices: [device],
                                      ["upload", Self.app, "-d", Self.address, "--connect-timeout", "0.5", "--retries", "0"])
        #expect(short.status == 2, "exit 2: could not be connected; \(short.error)")
        #expect(short.stat(Self.address, "connections") == 0)
        // dfu's own run: the scan, the 0.5 s connect that times out, and the way out.
        #expect(dfuSeconds < 6.0 * Double(TestTime.scale), "\(dfuSeconds) s")
        let long = try await DFUSimRun.run(devices: [device],
                                     ["upload", Self.app, "-d", Self.address, "--connect-timeout", "\(3 * TestTime.scale)", "--retries", "0"])
        #expect(long.status == 0, "\(long.error)")
        #expect(long.imageSize(Self.address, "application") == 4096)
    }

    /// Data bytes a `-vv` trace shows written to the Secure DFU Packet characteristic.
    static func packetBytes(_ trace: Substring) -> Int {
        trace.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "→ Secure DFU Packet: ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.reduce(0, +)
    }

    @Test(arguments: [true, false])
    func secondRunResumesWhereTheFirstWasCut(resume: Bool) async throws {
        // Two `dfu upload` processes against the same stand-in: the first loses the link after
        // 3000 packet bytes and, with --retries 0, gives up (exit 2), leaving the device in its
        // bootloader; the second finds it there (address + 1) and continues.
        let package = UploadCommandTests.package("secure-app-4097.zip")
        let expected = try await DFUSimRun.packageCRCs(package)["application"]
        let dfu = TestData.dfuExecutable.path
        let second = resume ? "" : " --no-resume"
        let script = """
            "$0" upload "$1" -d \(Self.address) --retries 0; echo "first run: $?" >&2
            echo "second run" >&2
            exec "$0" upload "$1" -d \(Self.address) -vv\(second)
            """
        let run = try await DFUSimRun.run(devices: [Self.buttonless], faults: ["disconnect-after-bytes=3000"],
                                    command: ["/bin/sh", "-c", script, dfu, package])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("first run: 2\n"), "the first run lost the link: \(run.error)")
        let trace = try #require(run.error.split(separator: "second run\n", maxSplits: 1).last)
        if resume {
            // The simulated bootloader's answer to Select data object (the last Select answer with a
            // 4096-byte maximum): 60 06 01, maximum size u32, offset u32, CRC-32 u32, little-endian.
            let select = try #require(trace.split(separator: "\n").last {
                $0.contains("← Secure DFU Control Point: Select Object") && $0.contains("(60 06 01 00 10 00 00")
            })
            let hex = select.split(separator: "(").last?.dropLast().split(separator: " ").compactMap { UInt8($0, radix: 16) } ?? []
            try #require(hex.count == 15)
            let offset = Int(hex[7]) | Int(hex[8]) << 8 | Int(hex[9]) << 16 | Int(hex[10]) << 24
            #expect(offset > 0, "the bootloader kept what the first run sent: \(select)")
            #expect(Self.packetBytes(trace) < 4100, "only the rest is sent: \(Self.packetBytes(trace)) bytes")
        } else {
            #expect(Self.packetBytes(trace) >= 4100, "--no-resume sends everything again")
        }
        #expect(run.imageSize(Self.address, "application") == 4100)
        #expect(expected != nil && run.imageCRC(Self.address, "application") == expected, "byte-exact image")
    }
}
