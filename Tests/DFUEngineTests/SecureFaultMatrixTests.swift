import DFUCore
import DFUSimulator
import Testing
import DFUFormats

/// Every Secure fault either ends in a byte-exact image (by resume, retry or fallback)
/// or in the right typed error; the simulator never sees an unverified Execute.
@Suite struct SecureFaultMatrixTests {
    static let size = 4096 * 3 + 1000

    struct Fault: CustomTestStringConvertible, Sendable {
        let name: String
        let faults: SimulatedFaults
        var reconnects = false
        var testDescription: String { name }
    }

    /// Disconnects after N packet bytes: inside the init packet, inside objects, and exactly at each boundary.
    static let byteCuts: [Fault] = {
        let points = [1, 100, 244, 2000, 4095, 4096, 4097, 6000, 8191, 8192, 8193, 10_000, 12_287, 12_288, 12_289,
                      12_800, size - 1, size]
        return points.map { bytes in
            var faults = SimulatedFaults()
            // The init packet's bytes are counted too; offset by its length so cuts land in the firmware.
            faults.disconnectAfterPacketBytes = bytes + Fixtures.securePart(size: size).initPacket.count
            return Fault(name: "disconnect after firmware byte \(bytes)", faults: faults, reconnects: true)
        } + [{
            var faults = SimulatedFaults()
            faults.disconnectAfterPacketBytes = 10
            return Fault(name: "disconnect inside the init packet", faults: faults, reconnects: true)
        }()]
    }()

    /// Disconnects at a control point request, before the device sees it or after it answered.
    static let requestCuts: [Fault] = {
        let requests: [(String, UInt8, Int)] = [
            ("Set PRN", 0x02, 1), ("Select command", 0x06, 1), ("Create command", 0x01, 1), ("Checksum of init", 0x03, 1),
            ("Execute init", 0x04, 1), ("Set PRN data", 0x02, 2), ("Select data", 0x06, 2), ("Create data 1", 0x01, 2),
            ("Checksum data 1", 0x03, 2), ("Execute data 1", 0x04, 2), ("Create data 2", 0x01, 3), ("Execute data 3", 0x04, 4),
            ("Execute last", 0x04, 5),
        ]
        return requests.flatMap { name, op, occurrence in
            [true, false].map { before in
                var faults = SimulatedFaults()
                faults.disconnectAtRequest = .init(opCode: op, occurrence: occurrence, beforeDelivery: before)
                return Fault(name: "disconnect \(before ? "before" : "after") \(name)", faults: faults, reconnects: true)
            }
        }
    }()

    /// Packets lost on the air or corrupted.
    static let packetFaults: [Fault] = {
        var result: [Fault] = []
        for index in [1, 5, 12, 17, 18, 30, 60] {
            var dropped = SimulatedFaults()
            dropped.droppedPackets = [index + 1]
            result.append(Fault(name: "packet \(index) lost", faults: dropped))
            var corrupted = SimulatedFaults()
            corrupted.corruptedPackets = [index + 1]
            result.append(Fault(name: "packet \(index) corrupted", faults: corrupted))
        }
        var twice = SimulatedFaults()
        twice.droppedPackets = [3, 4 + 17]
        result.append(Fault(name: "one packet lost in each of two attempts", faults: twice))
        var slow = SimulatedFaults()
        slow.responseDelay = .milliseconds(500)
        result.append(Fault(name: "every answer delayed 500 ms", faults: slow))
        return result
    }()

    @Test(arguments: byteCuts + requestCuts + packetFaults, [UInt16(12), 0])
    func completesByteExactDespite(_ fault: Fault, prn: UInt16) async throws {
        let part = Fixtures.securePart(size: Self.size)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], faults: fault.faults)
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport,
                                        options: Fixtures.options(prn: prn))
        #expect(throws: Never.self) { try result.get() }
        // With PRN 0 the PRN is never set for data, so that trigger never fires.
        let fires = fault.reconnects && !(prn == 0 && fault.name.hasSuffix("Set PRN data"))
        #expect((try? result.get().reconnections) == (fires ? 1 : 0))
        let installed = transport.peripheral().storage.application == part.image
        #expect(installed, "the installed application differs from the image sent")
        #expect(transport.violations.isEmpty)
    }

    @Test func failsWithChecksumErrorWhenEveryAttemptIsCorrupted() async throws {
        var faults = SimulatedFaults()
        // Packet 2 of the first data object in each of the three attempts (the init packet is 1 write).
        faults.corruptedPackets = [3, 3 + 17, 3 + 34]
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], faults: faults)
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [Fixtures.securePart(size: Self.size)]),
                                        on: transport, options: Fixtures.options(prn: 0))
        guard case .failure(.crcMismatch(_, let object, _, _, _, _, let attempts)) = result else {
            Issue.record("expected a checksum error, got \(result)")
            return
        }
        #expect(attempts == 3)
        #expect(object.hasPrefix("data object 1 of 4"))
        #expect(transport.violations.isEmpty)
        let installed = transport.peripheral().storage.application == Fixtures.securePart(size: Self.size).image
        #expect(!installed, "a corrupted image must never be activated")
    }

    @Test func bootloaderThatNeverAnswersTimesOut() async throws {
        var configuration = SecureBootloaderConfiguration()
        configuration.neverAnswers = true
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(configuration: configuration)])
        let started = transport.clock.now
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [Fixtures.securePart()]), on: transport)
        guard case .failure(.timeout(let step, let after)) = result else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        #expect(step == .settingPRN)
        #expect(after == .seconds(10))
        #expect(started.duration(to: transport.clock.now) < .seconds(11))
    }

    @Test func givesUpAfterTheReconnectAttempts() async throws {
        // A device that drops every link after 1000 bytes: three resumes, then the typed error.
        let part = Fixtures.securePart(size: 40_000)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        var options = Fixtures.options()
        options.reconnectAttempts = 0
        var faults = SimulatedFaults()
        faults.disconnectAfterPacketBytes = 5000
        transport.setFaults(faults)
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport, options: options)
        guard case .failure(.disconnected(let step, let attempts)) = result else {
            Issue.record("expected a disconnect error, got \(result)")
            return
        }
        #expect(step == .sendingFirmware)
        #expect(attempts == 1)
        #expect(transport.violations.isEmpty)
    }
}

extension SecureFaultMatrixTests {
    @Test(arguments: [2_000, 4_096, 6_000, 10_000])
    func resumesOnSDK15Point2BootloadersThatKeepOnlyWholePages(afterBytes bytes: Int) async throws {
        var configuration = SecureBootloaderConfiguration()
        configuration.reportsOnlyFullPagesAfterLinkLoss = true
        var faults = SimulatedFaults()
        let part = Fixtures.securePart(size: Self.size)
        faults.disconnectAfterPacketBytes = bytes + part.initPacket.count
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(configuration: configuration)], faults: faults)
        let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport).get()
        #expect(report.reconnections == 1)
        let installed = transport.peripheral().storage.application == part.image
        #expect(installed)
        #expect(transport.violations.isEmpty)
        // After the loss Select reports the last executed page boundary: the client executes that page
        // again and gets 60 04 08 (already executed). Cut at 4096 nothing was executed yet: offset 0.
        if bytes > 4096 {
            #expect(transport.trace.contains { $0.event == .notification(.secureControlPoint, [0x60, 0x04, 0x08]) })
        }
    }
}
