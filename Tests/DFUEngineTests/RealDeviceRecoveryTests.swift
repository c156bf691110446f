import DFUCore
import DFUCrypto
import DFUSimulator
import Testing
import TestSupport
import DFUFormats

/// How the engine recovers where a real bootloader or link misbehaves: late answers, a lost final
/// answer, lost Legacy packets and links.
@Suite struct RealDeviceRecoveryTests {
    static func notifications(_ transport: SimulatedTransport) -> [[UInt8]] {
        transport.trace.compactMap { if case .notification(_, let bytes) = $0.event { bytes } else { nil } }
    }

    static func writes(_ transport: SimulatedTransport, to endpoint: DFUEndpoint) -> [[UInt8]] {
        transport.trace.compactMap { if case .write(endpoint, let bytes) = $0.event { bytes } else { nil } }
    }

    /// Notifications of an upload to a device in its bootloader, PRN 12: 1 Set PRN 0, 2 Select command,
    /// 3 Create command, 4 its checksum, 5 its Execute, 6 Set PRN 12, 7 Select data, 8 Create data, 9 the
    /// first receipt (after 12 packets).
    static let firstReceipt = 9

    /// A receipt more than the 1 s receipt timeout late: the engine asks for the checksum, and the late
    /// receipt and the checksum's answer (both `60 03 01` with the same offset) must not be read as the
    /// answer to a later request.
    @Test(arguments: [1_500, 2_500, 4_000])
    func aReceiptLaterThanItsTimeoutIsNotTakenForALaterChecksum(milliseconds: Int) async throws {
        var faults = SimulatedFaults()
        faults.lateNotifications = [Self.firstReceipt: .milliseconds(milliseconds)]
        let part = Fixtures.securePart(size: 12_000)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], faults: faults)
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport).get()
        #expect(transport.peripheral().storage.application == part.image)
        #expect(!report.fellBackToPRN1)
        // The first object was sent once: one Create for each of the three 4 KB objects.
        let creates = Self.writes(transport, to: .secureControlPoint).filter { $0.first == 0x01 && $0.count > 1 && $0[1] == 0x02 }
        #expect(creates.count == 3)
    }

    /// The same as a state machine: after the timeout, the late receipt answers the checksum request; the
    /// checksum's own answer then arrives while the next receipt is awaited and is dropped as stale.
    @Test func aStaleChecksumAnswerAfterALateReceiptIsDropped() {
        let image = TestFirmware.image(size: 8192)
        var machine = SecureDFUStateMachine(initPacket: [1, 2, 3, 4], image: image,
                                            configuration: .init(packetReceiptNotifications: 2, packetSize: 244,
                                                                 firstObjectDelay: .zero))
        func answer(_ op: UInt8, _ payload: [UInt8] = []) -> [UInt8] { [0x60, op, 0x01] + payload }
        func offsetAndCRC(_ offset: Int) -> [UInt8] {
            var writer = ByteWriter()
            writer.writeInteger(UInt32(offset))
            writer.writeInteger(CRC32.checksum(offset <= 4 ? [1, 2, 3, 4][0..<offset] : image[0..<offset]))
            return writer.bytes
        }
        _ = machine.start()
        _ = machine.received(answer(0x02))  // Set PRN 0
        var writer = ByteWriter()
        writer.writeInteger(UInt32(256))
        _ = machine.received(answer(0x06, writer.bytes + [0, 0, 0, 0, 0, 0, 0, 0]))  // Select command: nothing
        _ = machine.received(answer(0x01))  // Create command
        _ = machine.packetsWritten()
        _ = machine.received(answer(0x03, offsetAndCRC(4)))
        _ = machine.received(answer(0x04))  // Execute command
        _ = machine.received(answer(0x02))  // Set PRN 2
        var select = ByteWriter()
        select.writeInteger(UInt32(4096))
        _ = machine.received(answer(0x06, select.bytes + [0, 0, 0, 0, 0, 0, 0, 0]))
        guard case .writePackets(_, awaitReceipt: true) = machine.received(answer(0x01)) else {
            Issue.record("expected the first two packets")
            return
        }
        // The receipt for 488 bytes is late: the machine asks for the checksum.
        guard case .send(.calculateChecksum) = machine.timedOut(after: .seconds(1)) else {
            Issue.record("expected a checksum request")
            return
        }
        // The late receipt answers it; the next two packets go.
        guard case .writePackets(_, awaitReceipt: true) = machine.received(answer(0x03, offsetAndCRC(488))) else {
            Issue.record("expected the next packets")
            return
        }
        // The checksum's own answer (488) arrives while the receipt for 976 is awaited: stale, dropped.
        guard case .awaitNotification = machine.received(answer(0x03, offsetAndCRC(488))) else {
            Issue.record("a stale 488 answer was taken for the receipt of 976")
            return
        }
        guard case .writePackets = machine.received(answer(0x03, offsetAndCRC(976))) else {
            Issue.record("expected the transfer to go on")
            return
        }
        #expect(machine.lossesDetected == 0)
    }

    /// Notifications of an upload through a buttonless application without bonds, for `size` bytes.
    static func finalAnswerIndex(size: Int) async throws -> Int {
        let part = Fixtures.securePart(size: size)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        _ = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport).get()
        return notifications(transport).count
    }

    /// The final Execute's answer lost on the air: the device reset into the new application, which
    /// (buttonless) still advertises the DFU service. That is success, not "rejected".
    @Test func aLostFinalAnswerIsSuccessWhenTheDeviceComesBackAsTheNewApplication() async throws {
        let index = try await Self.finalAnswerIndex(size: 9_000)
        var faults = SimulatedFaults()
        faults.droppedNotifications = [index]
        let part = Fixtures.securePart(size: 9_000)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)], faults: faults)
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport)
        #expect(throws: Never.self) { try result.get() }
        #expect(transport.peripheral().storage.application == part.image)
        #expect(Self.notifications(transport).last != [0x60, 0x04, 0x01], "the final answer was indeed lost")
    }

    /// The same with a plain application (no DFU service): the bootloader is not found again.
    @Test func aLostFinalAnswerIsSuccessWhenNoBootloaderAdvertisesAgain() async throws {
        let part = Fixtures.securePart(size: 9_000)
        let probe = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        _ = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: probe).get()
        var faults = SimulatedFaults()
        faults.droppedNotifications = [Self.notifications(probe).count]
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], faults: faults)
        var options = Fixtures.options()
        options.scanTimeout = .seconds(2)
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport, options: options)
        #expect(throws: Never.self) { try result.get() }
        #expect(transport.peripheral().storage.application == part.image)
    }

    // MARK: - Legacy

    static let legacyPart = Fixtures.legacyPart(size: 6_000)
    static let legacyPackage = DFUPackage(format: .legacy, parts: [legacyPart])

    /// SDK 11 `dfu_start_pkt_handle` takes Start DFU only in DFU_STATE_IDLE, and a lost link leaves the
    /// bootloader mid-transfer: after every lost link it is reset and started over, not only after the first.
    @Test func aLegacyTargetIsResetAndRestartedAfterEachLostLink() async throws {
        var faults = SimulatedFaults()
        faults.disconnectAfterPacketBytes = 1_000
        // The second Receive Firmware Image request (03), in the session after the first restart.
        faults.disconnectAtRequest = SimulatedFaults.RequestTrigger(opCode: 0x03, occurrence: 2)
        let transport = SimulatedTransport(
            peripherals: [Fixtures.legacyDevice(storage: SimulatedStorage(application: nil, softdeviceID: 0x0080))],
            faults: faults)
        let report = try await Fixtures.run(Self.legacyPackage, on: transport).get()
        #expect(transport.peripheral().storage.application == Self.legacyPart.image)
        #expect(report.reconnections == 2)
        // 10 01 02: Start DFU refused with "invalid state" after each lost link, then 06 Reset.
        #expect(Self.notifications(transport).filter { $0 == [0x10, 0x01, 0x02] }.count == 2)
        #expect(transport.violations.isEmpty)
    }

    /// A dropped Legacy packet: the receipt never comes. The engine waits the 1 s receipt timeout, not the
    /// 10 s response timeout, then resets the bootloader and sends the image again.
    @Test(arguments: [UInt16(12), 1])
    func aDroppedLegacyPacketIsRecoveredByAResetWithoutWaitingTheResponseTimeout(prn: UInt16) async throws {
        let device = Fixtures.legacyDevice(storage: SimulatedStorage(application: nil, softdeviceID: 0x0080))
        let clean = try await Fixtures.run(Self.legacyPackage, on: SimulatedTransport(peripherals: [device]),
                                           options: Fixtures.options(prn: prn)).get()
        var faults = SimulatedFaults()
        faults.droppedPackets = [40]
        let transport = SimulatedTransport(peripherals: [device], faults: faults)
        let report = try await Fixtures.run(Self.legacyPackage, on: transport, options: Fixtures.options(prn: prn)).get()
        #expect(transport.peripheral().storage.application == Self.legacyPart.image)
        // At most the image again, the receipt timeout and a reconnection: never the 10 s response timeout.
        #expect(report.elapsed < clean.elapsed * 2 + .seconds(3), "took \(report.elapsed), \(clean.elapsed) without the loss")
        #expect(Self.writes(transport, to: .legacyControlPoint).contains([0x06]))
        #expect(transport.violations.isEmpty)
    }

    /// The answer to the last packet (Receive Firmware Image) lost: reset and start over, not a failure.
    @Test func aMissingLegacyAnswerIsRecoveredByAReset() async throws {
        let probe = SimulatedTransport(peripherals: [Fixtures.legacyDevice()])
        _ = try await Fixtures.run(Self.legacyPackage, on: probe).get()
        // 10 03 01: the answer to the last packet.
        guard let index = Self.notifications(probe).firstIndex(of: [0x10, 0x03, 0x01]) else {
            Issue.record("no Receive Firmware Image answer")
            return
        }
        var faults = SimulatedFaults()
        faults.droppedNotifications = [index + 1]
        let transport = SimulatedTransport(
            peripherals: [Fixtures.legacyDevice(storage: SimulatedStorage(application: nil, softdeviceID: 0x0080))],
            faults: faults)
        let report = try await Fixtures.run(Self.legacyPackage, on: transport).get()
        #expect(transport.peripheral().storage.application == Self.legacyPart.image)
        #expect(report.elapsed < .seconds(8), "took \(report.elapsed)")
    }
}
