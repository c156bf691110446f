import DFUCore
import DFUSimulator
import Testing
import TestSupport
import DFUFormats

@Suite struct LegacyDFUTests {
    static let part = Fixtures.legacyPart(size: 3_000)
    static let package = DFUPackage(format: .legacy, parts: [part])

    static func writes(_ transport: SimulatedTransport, to endpoint: DFUEndpoint) -> [[UInt8]] {
        transport.trace.compactMap { if case .write(endpoint, let bytes) = $0.event { bytes } else { nil } }
    }

    static func notifications(_ transport: SimulatedTransport) -> [[UInt8]] {
        transport.trace.compactMap { if case .notification(_, let bytes) = $0.event { bytes } else { nil } }
    }

    @Test(arguments: [UInt16(12), 0, 1])
    func uploadsApplicationInTwentyBytePacketsWhateverTheMTU(prn: UInt16) async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice()])  // MTU 247
        _ = try await Fixtures.run(Self.package, on: transport, options: Fixtures.options(prn: prn)).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        #expect(transport.violations.isEmpty)
        let packets = Self.writes(transport, to: .legacyPacket)
        #expect(packets.allSatisfy { $0.count <= 20 })
        let controlPoint = Self.writes(transport, to: .legacyControlPoint)
        // 01 04 Start DFU (application); 02 00 / 02 01 around the init packet; [08 N]; 03; 04; 05.
        var expected: [[UInt8]] = [[0x01, 0x04], [0x02, 0x00], [0x02, 0x01]]
        if prn > 0 { expected.append([0x08, UInt8(prn), 0x00]) }
        expected += [[0x03], [0x04], [0x05]]
        #expect(controlPoint == expected)
        // Sizes after Start DFU: SoftDevice 0, bootloader 0, application 3000 (B8 0B 00 00).
        #expect(packets.first == [0, 0, 0, 0, 0, 0, 0, 0, 0xB8, 0x0B, 0x00, 0x00])
        let receipts = Self.notifications(transport).filter { $0.first == 0x11 }
        #expect(receipts.count == (prn == 0 ? 0 : (3000 / 20 - 1) / Int(prn)))
        // 11 <bytes u32>: the first receipt after N packets of 20 bytes.
        if prn > 0 { #expect(receipts.first == [0x11, UInt8(20 * Int(prn)), 0, 0, 0]) }
    }

    @Test func sendsSoftDeviceAndBootloaderThenApplication() async throws {
        let system = Fixtures.legacyPart(.softdeviceBootloader, size: 5_000, seed: 11, softdeviceSize: 3_000)
        let app = Fixtures.legacyPart(.application, size: 2_000, seed: 12)
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(application: SimulatedLegacyApplication())])
        let report = try await Fixtures.run(DFUPackage(format: .legacy, parts: [system, app]), on: transport).get()
        #expect(report.partsSent == [.softdeviceBootloader, .application])
        let storage = transport.peripheral().storage
        let ok = storage.softdevice == Array(system.image[0..<3000]) && storage.bootloader == Array(system.image[3000...])
            && storage.application == app.image
        #expect(ok)
        // Start DFU type 03 with sizes 3000 / 2000 / 0.
        #expect(Self.writes(transport, to: .legacyControlPoint).contains([0x01, 0x03]))
        #expect(Self.writes(transport, to: .legacyPacket).contains([0xB8, 0x0B, 0, 0, 0xD0, 0x07, 0, 0, 0, 0, 0, 0]))
        #expect(transport.violations.isEmpty)
    }

    @Test func applicationWithVersion01JumpsToTheBootloaderAtTheSameAddress() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(application: SimulatedLegacyApplication())])
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        // The first Control Point write is the jump, 01 04, to the application.
        #expect(Self.writes(transport, to: .legacyControlPoint).first == [0x01, 0x04])
        let addresses = transport.trace.compactMap { if case .connected(let a) = $0.event { a.description } else { nil } }
        #expect(addresses == ["C0:FF:EE:00:12:FF", "C0:FF:EE:00:12:FF"])
    }

    @Test func applicationWithoutVersionIsRecognisedByItsOtherServices() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(
            application: SimulatedLegacyApplication(hasVersionCharacteristic: false))])
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
    }

    @Test func bootloaderWithoutVersionRunsInSlowMode() async throws {
        var configuration = LegacyBootloaderConfiguration()
        configuration.version = nil
        let image = TestFirmware.image(size: 400, seed: 3)
        let part = FirmwarePart(kind: .application, image: image, initPacket: LegacyInitPacketBuilder(image: image).bytes.suffix(2))
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(configuration)])
        let start = transport.clock.now
        _ = try await Fixtures.run(DFUPackage(format: .legacy, parts: [part]), on: transport).get()
        let installed = transport.peripheral().storage.application == image
        #expect(installed)
        // SDK ≤ 6: 02 then the CRC-16 alone; PRN forced to 1 (08 01 00).
        let controlPoint = Self.writes(transport, to: .legacyControlPoint)
        #expect(controlPoint == [[0x01, 0x04], [0x02], [0x08, 0x01, 0x00], [0x03], [0x04], [0x05]])
        // 1 s before Start DFU and 2 s before the first packet.
        #expect(start.duration(to: transport.clock.now) > .seconds(3))
    }

    @Test func originalBootloaderGetsTheAppOnlyStartAfterNotSupported() async throws {
        var configuration = LegacyBootloaderConfiguration()
        configuration.originalStartOnly = true
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(configuration)])
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        let controlPoint = Self.writes(transport, to: .legacyControlPoint)
        #expect(controlPoint.prefix(2) == [[0x01, 0x04], [0x01]])
        // 10 01 03: Start DFU → not supported.
        #expect(Self.notifications(transport).first == [0x10, 0x01, 0x03])
        #expect(Self.writes(transport, to: .legacyPacket)[1] == [0xB8, 0x0B, 0x00, 0x00])
    }

    @Test func invalidStateIsResetAndRestartedOnce() async throws {
        var storage = SimulatedStorage(softdeviceID: 0x0080)
        storage.legacyTransferInterrupted = true
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(storage: storage)])
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        // 10 01 02: Start DFU → invalid state; then 06 Reset and a fresh start.
        #expect(Self.notifications(transport).first == [0x10, 0x01, 0x02])
        #expect(Self.writes(transport, to: .legacyControlPoint).prefix(3) == [[0x01, 0x04], [0x06], [0x01, 0x04]])
    }

    /// Packet bytes after which the link drops: in the sizes (12 bytes), the init packet (14) and the image (3000).
    static let cuts = [1, 13, 12, 20, 21, 200, 240, 241, 500, 999, 1000, 1500, 2000, 2400, 2500, 2980, 2999, 3000, 3012, 3020, 3026]

    @Test(arguments: cuts)
    func disconnectDuringTheTransferRestartsAndCompletes(afterBytes bytes: Int) async throws {
        var faults = SimulatedFaults()
        faults.disconnectAfterPacketBytes = bytes
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(storage: SimulatedStorage(application: nil, softdeviceID: 0x0080))],
                                           faults: faults)
        let report = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        #expect(report.reconnections == 1)
        #expect(transport.violations.isEmpty)
    }

    @Test func corruptedPacketFailsValidationWithACRCError() async throws {
        var faults = SimulatedFaults()
        faults.corruptedPackets = [10]
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice()], faults: faults)
        let result = await Fixtures.run(Self.package, on: transport)
        guard case .failure(let error) = result, case .remote(.validating, _, .legacy(.crcError)) = error else {
            Issue.record("expected a CRC error at validation, got \(result)")
            return
        }
        #expect(error.description.hasPrefix("the bootloader rejected the firmware after receiving it: CRC error (status 5)"))
    }

    @Test func bootloaderThatNeverAnswersTimesOut() async throws {
        var configuration = LegacyBootloaderConfiguration()
        configuration.neverAnswers = true
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(configuration)])
        guard case .failure(.timeout(.startingDFU, .seconds(10))) = await Fixtures.run(Self.package, on: transport) else {
            Issue.record("expected a timeout while starting")
            return
        }
    }

    @Test func packageForTheOtherProtocolIsRefused() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice()])
        let secure = DFUPackage(format: .secure, parts: [Fixtures.securePart()])
        guard case .failure(.protocolMismatch(.secure, .legacy)) = await Fixtures.run(secure, on: transport) else {
            Issue.record("expected a protocol mismatch")
            return
        }
    }

    @Test func softDeviceMismatchInTheInitPacketIsRejected() async throws {
        let image = TestFirmware.image(size: 400)
        let part = FirmwarePart(kind: .application, image: image,
                                initPacket: LegacyInitPacketBuilder(image: image, softdeviceRequirements: [0x0064]).bytes)
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice()])
        let result = await Fixtures.run(DFUPackage(format: .legacy, parts: [part]), on: transport)
        guard case .failure(let error) = result, case .remote(.sendingInitParameters, _, .legacy(.operationFailed)) = error else {
            Issue.record("expected the init packet to be rejected, got \(result)")
            return
        }
        #expect(error.isInitPacketRejection)
    }
}

extension LegacyDFUTests {
    struct RequestCut: CustomTestStringConvertible, Sendable {
        let name: String
        let trigger: SimulatedFaults.RequestTrigger
        var testDescription: String { name }
    }

    /// Disconnects at each Legacy control point request, before the device sees it or after.
    static let requestCuts: [RequestCut] = [
        ("Start DFU", UInt8(0x01)), ("Initialize", 0x02), ("PRN request", 0x08), ("Receive", 0x03), ("Validate", 0x04),
    ].flatMap { name, op in
        [true, false].map { before in
            RequestCut(name: "\(before ? "before" : "after") \(name)", trigger: .init(opCode: op, beforeDelivery: before))
        }
    }

    @Test(arguments: requestCuts)
    func disconnectAtARequestRestartsAndCompletes(_ cut: RequestCut) async throws {
        var faults = SimulatedFaults()
        faults.disconnectAtRequest = cut.trigger
        let transport = SimulatedTransport(peripherals: [Fixtures.legacyDevice(storage: SimulatedStorage(application: nil, softdeviceID: 0x0080))],
                                           faults: faults)
        let report = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        #expect(report.reconnections == 1)
        #expect(transport.violations.isEmpty)
    }
}
