import DFUCore
import DFUSimulator
import Foundation
import Testing
import ZipArchive
import DFUFormats

/// The simulated SDK 15–17 Secure bootloader where its timing and checks follow the SDK's source
/// (`nrf_dfu_req_handler.c`, `nrf_dfu_validation.c`), and the engine where it depends on them.
@Suite struct SecureBootloaderFidelityTests {
    static let keys = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/keys")
    static let packages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/packages")

    static func notificationTimes(_ transport: SimulatedTransport, _ bytes: [UInt8]) -> [Duration] {
        transport.trace.compactMap { entry in
            if case .notification(_, let value) = entry.event, value == bytes { entry.time } else { nil }
        }
    }

    static func writeTimes(_ transport: SimulatedTransport, _ bytes: [UInt8]) -> [Duration] {
        transport.trace.compactMap { entry in
            if case .write(.secureControlPoint, let value) = entry.event, value == bytes { entry.time } else { nil }
        }
    }

    /// Options of a client that does not pace: PRN 0, packets back to back, no first-object delay.
    static func unpaced() -> DFUOptions {
        Fixtures.options(prn: 0) {
            $0.flashPacing = nil
            $0.firstObjectDelay = .zero
        }
    }

    /// Conformance S5: `on_data_obj_execute_request_sched` answers a non-final Execute only when fstorage is idle.
    @Test func aNonFinalExecuteIsAnsweredOnlyWhenTheObjectsFlashWorkIsDone() async throws {
        var link = LinkModel()
        link.phy = .le2M
        let part = Fixtures.securePart(size: 3 * 4096)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
        _ = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport, options: Self.unpaced()).get()
        // 04: Execute; 60 04 01: its success. The init packet's Execute comes first.
        let requests = Self.writeTimes(transport, [0x04])
        let answers = Self.notificationTimes(transport, [0x60, 0x04, 0x01])
        #expect(requests.count == 4 && answers.count == 4)
        // 01 02 size: Create data object.
        let creates = transport.trace.compactMap { entry in
            if case .write(.secureControlPoint, let value) = entry.event, value.prefix(2) == [0x01, 0x02] { entry.time } else { nil }
        }
        for object in 1...2 {
            // The Create queues the page erase (85 ms); the 17 packets of 244 bytes reach the device within two
            // 15 ms events and queue 4096 bytes of word writes (1024 × 41 µs). The answer waits for all of it,
            // where an unheld answer comes in the next connection event (15 ms).
            let flashDone = creates[object - 1] + .milliseconds(85) + .microseconds(1024 * 41)
            #expect(answers[object] >= flashDone, "object \(object)")
            let held = answers[object] - requests[object]
            #expect(held > .milliseconds(30), "object \(object): answered \(held) after the request")
        }
        #expect(transport.packetsDroppedByTargets == 0)
    }

    /// A client that does not pace (PRN 0, packets back to back, no first-object delay) loses nothing on the
    /// default link, as with an SDK 15–17 bootloader (conformance S3, S5).
    @Test func aClientThatDoesNotPaceUploads200KBByteExactOnTheDefaultLink() async throws {
        let part = Fixtures.securePart(size: 200_000, seed: 9)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport, options: Self.unpaced()).get()
        #expect(transport.peripheral().storage.application == part.image)
        #expect(transport.packetsDroppedByTargets == 0)
        #expect(!report.fellBackToPRN1)
        #expect(transport.violations.isEmpty)
        // One Create and one Execute per 4 KB object: nothing was sent twice.
        let executes = Self.writeTimes(transport, [0x04]).count
        let objects: Int = (200_000 + 4095) / 4096
        #expect(executes == 1 + objects)
    }

    /// Conformance S6: the final Execute's answer leaves before the settings write and the reset, whatever the interval.
    @Test(arguments: [15, 50, 100, 400])
    func theFinalExecuteIsAnsweredBeforeTheResetWhateverTheInterval(intervalMilliseconds: Int) async throws {
        var link = LinkModel()
        link.connectionInterval = .milliseconds(intervalMilliseconds)
        let part = Fixtures.securePart(size: 5_000)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)], link: link)
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport).get()
        #expect(transport.peripheral().storage.application == part.image)
        #expect(report.reconnections == 0)
        guard let lastAnswer = Self.notificationTimes(transport, [0x60, 0x04, 0x01]).last,
            let reset = transport.trace.last(where: { $0.event == .disconnected })?.time
        else {
            Issue.record("no final answer or no reset in the trace")
            return
        }
        #expect(lastAnswer <= reset)
    }

    static func package(_ name: String) throws -> DFUPackage {
        let bytes = [UInt8](try Data(contentsOf: packages.appendingPathComponent(name)))
        return try DFUPackage(entries: try ZipArchive.readAll(bytes: bytes))
    }

    /// A bootloader that runs what the package requires, built with the public key in `name`.
    static func signedDevice(for package: DFUPackage, key name: String) throws -> SimulatedPeripheral {
        let command = package.parts.first.flatMap { SecureInitCommand(packet: $0.initPacket) }
        var configuration = SecureBootloaderConfiguration()
        configuration.hardwareVersion = command?.hardwareVersion ?? 52
        configuration.publicKey = [UInt8](try Data(contentsOf: keys.appendingPathComponent(name)))
        let storage = SimulatedStorage(application: nil, applicationVersion: 0,
                                       softdeviceID: command?.softdeviceRequirements.first ?? 0x0100, bootloaderVersion: 0)
        return Fixtures.secureDevice(configuration: configuration, storage: storage, startInBootloader: true)
    }

    /// Conformance S7: a bootloader built with the key the package was signed with installs it.
    @Test func aBootloaderWithTheSigningKeyInstallsTheSignedPackage() async throws {
        let package = try Self.package("secure-app-1024.zip")
        let transport = SimulatedTransport(peripherals: [try Self.signedDevice(for: package, key: "test-public.pem")])
        _ = try await Fixtures.run(package, on: transport).get()
        #expect(transport.peripheral().storage.application == package.parts.first?.image)
    }

    /// Conformance S7: another key's signature fails `nrf_dfu_validation_signature_check`: result 05 (Invalid Object), not
    /// an extended error; the init packet's Execute is answered `60 04 05` and nothing is installed.
    @Test func aBootloaderWithAnotherKeyRefusesTheInitPacketWithInvalidObject() async throws {
        let package = try Self.package("secure-app-1024.zip")
        let transport = SimulatedTransport(peripherals: [try Self.signedDevice(for: package, key: "other-public.pem")])
        let result = await Fixtures.run(package, on: transport)
        guard case .failure(.remote(.executingInitPacket, _, .secure(.invalidObject, nil))) = result else {
            Issue.record("expected the init packet to be refused with Invalid Object, got \(result)")
            return
        }
        #expect(Self.notificationTimes(transport, [0x60, 0x04, 0x05]).count == 1)
        #expect(transport.peripheral().storage.application != package.parts.first?.image)
    }

    /// Conformance S7: with a key compiled in, an unsigned init packet is refused: extended error 08 (signature missing).
    @Test func aBootloaderWithAKeyRefusesAnUnsignedPackage() async throws {
        let package = try Self.package("secure-app-1024-unsigned.zip")
        let transport = SimulatedTransport(peripherals: [try Self.signedDevice(for: package, key: "test-public.pem")])
        let result = await Fixtures.run(package, on: transport)
        guard case .failure(.remote(.executingInitPacket, _, .secure(.extendedError, .signatureMissing))) = result else {
            Issue.record("expected signature missing, got \(result)")
            return
        }
    }
}
