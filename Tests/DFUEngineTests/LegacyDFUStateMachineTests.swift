import DFUCore
import Testing
import DFUFormats

@Suite struct LegacyDFUStateMachineTests {
    static let image: [UInt8] = Array(0..<45)
    /// dev type FFFF, rev FFFF, app version FFFFFFFF, 1 SoftDevice: FFFE, CRC-16 34 12.
    static let initPacket: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0xFE, 0xFF, 0x34, 0x12]
    static let part = FirmwarePart(kind: .application, image: image, initPacket: initPacket)

    enum Event { case requestWritten, packetsWritten, received([UInt8]) }

    @Test func applicationUploadFollowsTheReferenceFlowByteForByte() {
        var machine = LegacyDFUStateMachine(part: Self.part, configuration: .init(packetReceiptNotifications: 2,
                                                                                  version: LegacyDFUVersion(major: 0, minor: 8)))
        // Start DFU: 01, image type 04 (application).
        #expect(machine.start() == .send(.startDFU(.application)))
        #expect(LegacyDFURequest.startDFU(.application).bytes == [0x01, 0x04])
        let steps: [(Event, LegacyDFUAction)] = [
            // Sizes on the packet characteristic: SD 0, BL 0, app 45 (2D 00 00 00).
            (.requestWritten, .writePackets([[0, 0, 0, 0, 0, 0, 0, 0, 0x2D, 0, 0, 0]], awaitReceipt: true)),
            // 10 = response, 01 = Start DFU, 01 = success → 02 00: init packet begins.
            (.received([0x10, 0x01, 0x01]), .send(.initializeBegin)),
            (.requestWritten, .writePackets([Self.initPacket], awaitReceipt: false)),
            // 02 01: init packet complete.
            (.packetsWritten, .send(.initializeComplete)),
            // 08 02 00: a receipt every 2 packets.
            (.received([0x10, 0x02, 0x01]), .send(.packetReceiptRequest(2))),
            (.requestWritten, .send(.receiveFirmware)),
            // Two 20-byte packets, then a receipt.
            (.requestWritten, .writePackets([Array(0..<20), Array(20..<40)], awaitReceipt: true)),
            // 11 = receipt, 28 00 00 00 = 40 bytes received → the last 5 bytes.
            (.received([0x11, 0x28, 0x00, 0x00, 0x00]), .writePackets([Array(40..<45)], awaitReceipt: false)),
            (.packetsWritten, .writePackets([], awaitReceipt: true)),
            // 10 03 01: all bytes received → 04 Validate.
            (.received([0x10, 0x03, 0x01]), .send(.validate)),
            // 10 04 01: valid → 05 Activate and reset (no answer).
            (.received([0x10, 0x04, 0x01]), .send(.activateAndReset)),
            (.requestWritten, .awaitReset),
        ]
        for (index, step) in steps.enumerated() {
            let action: LegacyDFUAction
            switch step.0 {
            case .requestWritten: action = machine.requestWritten()
            case .packetsWritten: action = machine.packetsWritten()
            case .received(let bytes): action = machine.received(bytes)
            }
            #expect(action == step.1, "step \(index)")
        }
    }

    @Test(arguments: [
        (LegacyDFURequest.startDFU(.softdeviceBootloader), [UInt8]([0x01, 0x03]), false),
        (.startDFUOriginal, [0x01], false),
        (.initializeBegin, [0x02, 0x00], false),
        (.initializeComplete, [0x02, 0x01], true),
        (.initializeCRC, [0x02], false),
        (.packetReceiptRequest(0x0102), [0x08, 0x02, 0x01], false),   // N little-endian
        (.receiveFirmware, [0x03], false),
        (.validate, [0x04], true),
        (.activateAndReset, [0x05], false),
        (.reset, [0x06], false),
    ])
    func requestsEncodeAsTheReferenceTable(_ request: LegacyDFURequest, bytes: [UInt8], answered: Bool) {
        #expect(request.bytes == bytes)
        #expect(request.expectsResponse == answered)
    }

    @Test func notificationsDecodeOrFailWithoutTrapping() throws {
        #expect(try LegacyDFUNotification(bytes: [0x10, 0x01, 0x03]) == .response(.startDFU, .notSupported))
        #expect(try LegacyDFUNotification(bytes: [0x11, 0x10, 0x27, 0x00, 0x00]) == .packetReceipt(bytesReceived: 10_000))
        for bad: [UInt8] in [[], [0x10, 0x01], [0x11, 0x10, 0x27], [0x60, 0x01, 0x01]] {
            #expect(throws: LegacyDFUNotification.DecodingError.self) { try LegacyDFUNotification(bytes: bad) }
        }
    }

    @Test func invalidStateResetsAndRestartsOnlyOnce() {
        for restarted in [false, true] {
            var machine = LegacyDFUStateMachine(part: Self.part, configuration: .init(version: LegacyDFUVersion(major: 0, minor: 8),
                                                                                      restarted: restarted))
            _ = machine.start()
            _ = machine.requestWritten()
            // 10 01 02: invalid state.
            let action = machine.received([0x10, 0x01, 0x02])
            if restarted {
                guard case .fail(.remote(.startingDFU, "Start DFU", .legacy(.invalidState))) = action else {
                    Issue.record("the second invalid state must fail")
                    continue
                }
            } else {
                #expect(action == .resetAndRestart)
            }
        }
    }

    /// A machine that sent the first two packets with PRN 2 and awaits their receipt.
    static func awaitingTheFirstReceipt(restarted: Bool) -> LegacyDFUStateMachine {
        var machine = LegacyDFUStateMachine(part: Self.part, configuration: .init(packetReceiptNotifications: 2,
                                                                                  version: LegacyDFUVersion(major: 0, minor: 8),
                                                                                  restarted: restarted))
        _ = machine.start()
        _ = machine.requestWritten()
        _ = machine.received([0x10, 0x01, 0x01])
        _ = machine.requestWritten()
        _ = machine.packetsWritten()
        _ = machine.received([0x10, 0x02, 0x01])
        _ = machine.requestWritten()
        _ = machine.requestWritten()
        return machine
    }

    /// 11 14 00 00 00: the bootloader counted 20 bytes where 40 were sent. It cannot be told where to go on
    /// from: reset and start over while restarts are left, then fail.
    @Test func receiptWithTheWrongCountResetsAndRestartsThenFails() {
        var first = Self.awaitingTheFirstReceipt(restarted: false)
        guard case .resetAndRestart = first.received([0x11, 0x14, 0, 0, 0]) else {
            Issue.record("expected lost bytes to reset and restart")
            return
        }
        var last = Self.awaitingTheFirstReceipt(restarted: true)
        guard case .fail(.crcMismatch(.sendingFirmware, "firmware image", 40, 20, _, _, _)) = last.received([0x11, 0x14, 0, 0, 0]) else {
            Issue.record("expected lost bytes to fail when no restart is left")
            return
        }
    }

    /// No receipt at all (a packet was lost): the same, after the receipt timeout.
    @Test func missingReceiptResetsAndRestartsThenTimesOut() {
        var first = Self.awaitingTheFirstReceipt(restarted: false)
        #expect(first.awaitsPacketReceipt)
        guard case .resetAndRestart = first.timedOut(after: .seconds(1)) else {
            Issue.record("expected a missing receipt to reset and restart")
            return
        }
        var last = Self.awaitingTheFirstReceipt(restarted: true)
        guard case .fail(.timeout(.sendingFirmware, _)) = last.timedOut(after: .seconds(1)) else {
            Issue.record("expected a timeout when no restart is left")
            return
        }
    }

    @Test(arguments: [([UInt8]([0x01, 0x00]), "0.1", true), ([0x08, 0x00], "0.8", false), ([0x05, 0x00], "0.5", false)])
    func versionCharacteristicIsMinorThenMajor(_ bytes: [UInt8], text: String, isApplication: Bool) {
        let version = LegacyDFUVersion(bytes: bytes)
        #expect(version?.description == text)
        #expect(version?.isApplication == isApplication)
        #expect(LegacyDFUVersion(bytes: [0x08]) == nil)
    }
}
