import DFUCore
import DFUCrypto
import Testing
import DFUFormats

@Suite struct SecureDFUStateMachineTests {
    /// 5-byte init packet and 10-byte image; 8-byte packets.
    static let initPacket: [UInt8] = [0x12, 0x34, 0x56, 0x78, 0x9A]
    static let image: [UInt8] = Array(0..<10)

    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    static func machine(image: [UInt8] = image, prn: UInt16 = 0, packetSize: Int = 8, resume: Bool = true,
                        firstDelay: Duration = .zero) -> SecureDFUStateMachine {
        SecureDFUStateMachine(initPacket: initPacket, image: image, configuration: .init(
            packetReceiptNotifications: prn, packetSize: packetSize, resume: resume, firstObjectDelay: firstDelay))
    }

    enum Event { case start, received([UInt8]), packetsWritten, delayElapsed, timedOut, disconnected }

    static func feed(_ machine: inout SecureDFUStateMachine, _ event: Event) -> SecureDFUAction {
        switch event {
        case .start: machine.start()
        case .received(let bytes): machine.received(bytes)
        case .packetsWritten: machine.packetsWritten()
        case .delayElapsed: machine.delayElapsed()
        case .timedOut: machine.timedOut(after: .seconds(1))
        case .disconnected: machine.disconnected()
        }
    }

    @Test func happyPathFollowsTheReferenceFlowByteForByte() {
        var machine = Self.machine()
        let initCRC = CRC32.checksum(Self.initPacket)
        let imageCRC = CRC32.checksum(Self.image)
        let steps: [(Event, SecureDFUAction, wire: [UInt8]?)] = [
            // Set PRN 0 for the init packet: op 02, value u16 0.
            (.start, .send(.setPRN(0)), [0x02, 0x00, 0x00]),
            // 60 = response, 02 = Set PRN, 01 = success → Select command object: op 06, type 01.
            (.received([0x60, 0x02, 0x01]), .send(.select(.command)), [0x06, 0x01]),
            // Select answer: max size 256 (00 01 00 00), offset 0, CRC 0 → Create command, size 5.
            (.received([0x60, 0x06, 0x01] + [0x00, 0x01, 0x00, 0x00] + Self.le32(0) + Self.le32(0)),
             .send(.create(.command, size: 5)), [0x01, 0x01, 0x05, 0x00, 0x00, 0x00]),
            // Create succeeded → the init packet on the packet characteristic, PRN off.
            (.received([0x60, 0x01, 0x01]), .writePackets([Self.initPacket], awaitReceipt: false), nil),
            (.packetsWritten, .send(.calculateChecksum), [0x03]),
            // Checksum answer: offset 5, CRC-32 of the init packet → Execute.
            (.received([0x60, 0x03, 0x01] + Self.le32(5) + Self.le32(initCRC)), .send(.execute), [0x04]),
            // Init accepted; PRN stays 0 → Select data object: op 06, type 02.
            (.received([0x60, 0x04, 0x01]), .send(.select(.data)), [0x06, 0x02]),
            // Select answer: max size 4096 (00 10 00 00), offset 0, CRC 0 → Create data, size 10.
            (.received([0x60, 0x06, 0x01] + [0x00, 0x10, 0x00, 0x00] + Self.le32(0) + Self.le32(0)),
             .send(.create(.data, size: 10)), [0x01, 0x02, 0x0A, 0x00, 0x00, 0x00]),
            // Two packets: 8 + 2 bytes.
            (.received([0x60, 0x01, 0x01]), .writePackets([Array(0..<8), [8, 9]], awaitReceipt: false), nil),
            (.packetsWritten, .send(.calculateChecksum), [0x03]),
            (.received([0x60, 0x03, 0x01] + Self.le32(10) + Self.le32(imageCRC)), .send(.execute), [0x04]),
            // The last Execute succeeded: the device validates, activates and resets.
            (.received([0x60, 0x04, 0x01]), .awaitReset, nil),
        ]
        for (index, step) in steps.enumerated() {
            let action = Self.feed(&machine, step.0)
            #expect(action == step.1, "step \(index)")
            if let wire = step.wire, case .send(let request) = action { #expect(request.bytes == wire, "step \(index) bytes") }
        }
        #expect(machine.bytesExecuted == 10)
    }

    /// Drives a machine to the data Select, resuming the already executed init packet.
    static func atDataSelect(image: [UInt8], prn: UInt16 = 0, resume: Bool = true) -> SecureDFUStateMachine {
        var machine = Self.machine(image: image, prn: prn, packetSize: 244, resume: resume)
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        // Select command: the whole init packet is there with the right CRC → just Execute.
        let resumed = machine.received([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(5) + Self.le32(CRC32.checksum(initPacket)))
        #expect(resumed == .send(.execute))
        let next = machine.received([0x60, 0x04, 0x01])
        #expect(next == (prn == 0 ? .send(.select(.data)) : .send(.setPRN(prn))))
        if prn != 0 { _ = machine.received([0x60, 0x02, 0x01]) }
        return machine
    }

    struct ResumeCase: CustomTestStringConvertible, Sendable {
        let name: String
        let offset: Int
        let crcMatches: Bool
        let expected: SecureDFUAction
        var testDescription: String { name }
    }

    static let big: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    @Test(arguments: [
        ResumeCase(name: "nothing received: create the first object", offset: 0, crcMatches: true,
                   expected: .send(.create(.data, size: 4096))),
        ResumeCase(name: "offset on a boundary: execute that object again", offset: 4096, crcMatches: true,
                   expected: .send(.execute)),
        ResumeCase(name: "offset inside an object: send its rest without Create", offset: 5000, crcMatches: true,
                   expected: .writePackets(stride(from: 5000, to: 8192, by: 244).map { Array(big[$0..<min(8192, $0 + 244)]) },
                                           awaitReceipt: false)),
        ResumeCase(name: "everything received: the final Execute", offset: 10_000, crcMatches: true, expected: .send(.execute)),
        ResumeCase(name: "mismatch inside an object: recreate that object", offset: 5000, crcMatches: false,
                   expected: .send(.create(.data, size: 4096))),
        ResumeCase(name: "mismatch on a boundary: recreate the previous object", offset: 8192, crcMatches: false,
                   expected: .send(.create(.data, size: 4096))),
        ResumeCase(name: "mismatch at the end: recreate the last object", offset: 10_000, crcMatches: false,
                   expected: .send(.create(.data, size: 10_000 - 8192))),
        ResumeCase(name: "offset beyond the image: start over", offset: 20_000, crcMatches: true,
                   expected: .send(.create(.data, size: 4096))),
    ])
    func resumesFromTheDataSelect(_ testCase: ResumeCase) {
        var machine = Self.atDataSelect(image: Self.big)
        let prefix = Self.big[0..<min(testCase.offset, Self.big.count)]
        let crc = testCase.crcMatches ? CRC32.checksum(prefix) : CRC32.checksum(prefix) ^ 1
        let action = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(UInt32(testCase.offset)) + Self.le32(crc))
        #expect(action == testCase.expected)
    }

    @Test func operationNotPermittedOnAResumedExecuteMeansItWasAlreadyExecuted() {
        var machine = Self.atDataSelect(image: Self.big)
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(4096) + Self.le32(CRC32.checksum(Self.big[0..<4096])))
        // 60 04 08: Execute → operation not permitted; treated as success, next object is created.
        #expect(machine.received([0x60, 0x04, 0x08]) == .send(.create(.data, size: 4096)))
        #expect(machine.bytesExecuted == 4096)
    }

    @Test func operationNotPermittedOnAFreshExecuteIsAnError() {
        var machine = Self.atDataSelect(image: Self.big)
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0))
        _ = machine.received([0x60, 0x01, 0x01])
        _ = machine.packetsWritten()
        _ = machine.received([0x60, 0x03, 0x01] + Self.le32(4096) + Self.le32(CRC32.checksum(Self.big[0..<4096])))
        guard case .fail(.remote(step: .executingDataObject, _, .secure(.operationNotPermitted, nil))) = machine.received([0x60, 0x04, 0x08]) else {
            Issue.record("expected a remote error")
            return
        }
    }

    @Test func lostBytesSwitchToPRN1AndRecreateTheObject() {
        var machine = Self.atDataSelect(image: Self.big)
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0))
        _ = machine.received([0x60, 0x01, 0x01])
        #expect(machine.packetsWritten() == .send(.calculateChecksum))
        // The device holds only 3904 of 4096 bytes: a packet was lost → PRN 1, then Create again.
        let short = [0x60, 0x03, 0x01] + Self.le32(3904) + Self.le32(CRC32.checksum(Self.big[0..<3904]))
        #expect(machine.received(short) == .send(.setPRN(1)))
        #expect(machine.received([0x60, 0x02, 0x01]) == .send(.create(.data, size: 4096)))
        #expect(machine.fellBackToPRN1)
        // With PRN 1 every packet is followed by a receipt.
        #expect(machine.received([0x60, 0x01, 0x01]) == .writePackets([Array(Self.big[0..<244])], awaitReceipt: true))
        // The receipt reports a wrong CRC (corruption, not a loss): an attempt.
        let bad = [0x60, 0x03, 0x01] + Self.le32(244) + Self.le32(0xDEAD_BEEF)
        #expect(machine.received(bad) == .send(.create(.data, size: 4096)))
        _ = machine.received([0x60, 0x01, 0x01])
        #expect(machine.received(bad) == .send(.create(.data, size: 4096)))
        _ = machine.received([0x60, 0x01, 0x01])
        guard case .fail(.crcMismatch(_, _, 244, 244, _, 0xDEAD_BEEF, 3)) = machine.received(bad) else {
            Issue.record("expected a checksum error after three corrupted attempts")
            return
        }
    }

    /// Losses while the device answers are retried beyond the three attempts (the client slows down each
    /// time), up to eight per object; only then do they count as attempts.
    @Test func lossesAreRetriedWithLongerWaitsBeforeTheyCountAsAttempts() {
        var machine = Self.atDataSelect(image: Self.big)
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0))
        _ = machine.received([0x60, 0x01, 0x01])
        _ = machine.packetsWritten()
        // 60 03 01, offset 0: nothing of the object arrived.
        let nothing = [0x60, 0x03, 0x01] + Self.le32(0) + Self.le32(0)
        #expect(machine.received(nothing) == .send(.setPRN(1)))
        _ = machine.received([0x60, 0x02, 0x01])
        var waits: [Duration] = []
        var failed = false
        for _ in 0..<12 {
            // After a loss with PRN 1 already set, every Create is followed by a wait for the page erase.
            switch machine.received([0x60, 0x01, 0x01]) {
            case .wait(let wait):
                waits.append(wait)
                _ = machine.delayElapsed()
            case .writePackets:
                waits.append(.zero)
            default:
                Issue.record("expected packets or a wait after the Create")
            }
            if case .fail(.crcMismatch) = machine.received(nothing) {
                failed = true
                break
            }
        }
        // Eight free retries and three attempts: the eleventh loss of the object is fatal.
        #expect(waits == [0, 100, 200, 400, 800, 1600, 3200, 3200, 3200, 3200].map { .milliseconds($0) })
        #expect(failed)
        #expect(machine.lossesDetected == 10)
    }

    @Test func aMissingReceiptIsFollowedByAChecksumRequest() {
        var machine = Self.atDataSelect(image: Self.big, prn: 4)
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0))
        guard case .writePackets(let packets, awaitReceipt: true) = machine.received([0x60, 0x01, 0x01]) else {
            Issue.record("expected 4 packets then a receipt")
            return
        }
        #expect(packets.count == 4)
        #expect(machine.timedOut(after: .seconds(1)) == .send(.calculateChecksum))
        // The device has all 976 bytes: the receipt itself was lost; keep streaming.
        let ok = [0x60, 0x03, 0x01] + Self.le32(976) + Self.le32(CRC32.checksum(Self.big[0..<976]))
        guard case .writePackets(let next, awaitReceipt: true) = machine.received(ok) else {
            Issue.record("expected the next 4 packets")
            return
        }
        #expect(next.first == Array(Self.big[976..<1220]))
    }

    @Test func firstDataObjectWaitsForFlashPreparation() {
        var machine = Self.machine(firstDelay: .milliseconds(400))
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(5) + Self.le32(CRC32.checksum(Self.initPacket)))
        _ = machine.received([0x60, 0x04, 0x01])
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0))
        #expect(machine.received([0x60, 0x01, 0x01]) == .wait(.milliseconds(400)))
        #expect(machine.delayElapsed() == .writePackets([Array(0..<8), [8, 9]], awaitReceipt: false))
    }

    @Test func rejectedInitPacketNamesTheExtendedError() {
        var machine = Self.machine()
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(5) + Self.le32(CRC32.checksum(Self.initPacket)))
        // 60 04 0B 05: Execute → extended error, firmware version too low.
        guard case .fail(let error) = machine.received([0x60, 0x04, 0x0B, 0x05]) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.isInitPacketRejection)
        #expect(error.description == "the bootloader rejected the init packet: firmware version too low (extended error 0x05); rebuild the package with a higher application version (nrfutil pkg generate --application-version; a bootloader needs a strictly higher --bootloader-version)")
    }

    @Test func partlyReceivedInitPacketIsCompletedNotRecreated() {
        var machine = Self.machine()
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        let action = machine.received([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(3) + Self.le32(CRC32.checksum(Self.initPacket[0..<3])))
        #expect(action == .writePackets([[0x78, 0x9A]], awaitReceipt: false))
    }

    @Test func resumeOffRecreatesEvenAMatchingInitPacket() {
        var machine = Self.machine(resume: false)
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        let action = machine.received([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(5) + Self.le32(CRC32.checksum(Self.initPacket)))
        #expect(action == .send(.create(.command, size: 5)))
    }

    @Test func initPacketLargerThanTheCommandObjectIsRefused() {
        var machine = Self.machine()
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        guard case .fail(.invalidPart(.application, _)) = machine.received([0x60, 0x06, 0x01] + Self.le32(4) + Self.le32(0) + Self.le32(0)) else {
            Issue.record("expected an invalid part error")
            return
        }
    }

    @Test(arguments: [
        [UInt8](),                                // empty
        [0x10, 0x01, 0x01],                       // a Legacy response, not 0x60
        [0x60, 0x03, 0x01, 0x05, 0x00],           // checksum answer cut short
        [0x60, 0x06, 0x01],                       // Select answer without payload (wrong op too)
    ])
    func malformedNotificationsFailInsteadOfTrapping(_ bytes: [UInt8]) {
        var machine = Self.machine()
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(0) + Self.le32(0))
        _ = machine.received([0x60, 0x01, 0x01])
        _ = machine.packetsWritten()
        guard case .fail(.unexpectedResponse(.verifying(.command), bytes)) = machine.received(bytes) else {
            Issue.record("expected an unexpected-response error")
            return
        }
    }
}

extension SecureDFUStateMachineTests {
    @Test func perObjectDelayWaitsAfterEveryCreate() {
        var machine = SecureDFUStateMachine(initPacket: Self.initPacket, image: Self.big, configuration: .init(
            packetReceiptNotifications: 0, packetSize: 244, firstObjectDelay: .milliseconds(400), objectDelay: .milliseconds(100)))
        _ = machine.start()
        _ = machine.received([0x60, 0x02, 0x01])
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(5) + Self.le32(CRC32.checksum(Self.initPacket)))
        _ = machine.received([0x60, 0x04, 0x01])
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0))
        #expect(machine.received([0x60, 0x01, 0x01]) == .wait(.milliseconds(400)))
        _ = machine.delayElapsed()
        _ = machine.packetsWritten()
        _ = machine.received([0x60, 0x03, 0x01] + Self.le32(4096) + Self.le32(CRC32.checksum(Self.big[0..<4096])))
        #expect(machine.received([0x60, 0x04, 0x01]) == .send(.create(.data, size: 4096)))
        #expect(machine.received([0x60, 0x01, 0x01]) == .wait(.milliseconds(100)))
    }

    @Test func lateReceiptIsIgnoredWhileAnotherAnswerIsAwaited() {
        var machine = Self.atDataSelect(image: Self.big)
        _ = machine.received([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0))
        // Waiting for Create's answer, a stale receipt (60 03 01 …) arrives first.
        #expect(machine.received([0x60, 0x03, 0x01] + Self.le32(244) + Self.le32(1)) == .awaitNotification)
        #expect(machine.received([0x60, 0x01, 0x01]) != .awaitNotification)
    }
}
