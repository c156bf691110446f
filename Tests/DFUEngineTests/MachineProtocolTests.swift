@testable import DFUCore
import DFUCrypto
import Synchronization
import Testing
import DFUFormats

/// The machines as the runner sees them: one event in, one action out, byte for byte.
@Suite struct MachineProtocolTests {
    static let initPacket: [UInt8] = [0x12, 0x34, 0x56, 0x78, 0x9A]
    static let image: [UInt8] = Array(0..<10)
    static let peer = DFUPeer(address: DFUDeviceAddress("C0:FF:EE:00:12:35")!, name: "DfuTarg",
                              endpoints: [.secureControlPoint, .securePacket], serviceCount: 1,
                              maximumWriteLength: 20, isBonded: false)

    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    static func setup(prn: UInt16 = 0, mode: DFUDeviceMode = .secureBootloader) -> DFUMachineSetup {
        var options = DFUOptions()
        options.packetReceiptNotifications = prn
        return DFUMachineSetup(.sendPart(FirmwarePart(kind: .application, image: image, initPacket: initPacket)),
                               options: options, peer: peer, mode: mode)
    }

    static func play<Machine: DFUProtocolMachine>(_ machine: inout Machine, _ script: [(DFUMachineEvent, DFUMachineAction)]) {
        for (index, step) in script.enumerated() {
            #expect(machine.handle(step.0) == step.1, "step \(index): \(step.0)")
        }
    }

    static let controlPoint = DFUEndpoint.secureControlPoint
    static func request(_ bytes: [UInt8]) -> DFUMachineAction { .write([bytes], to: controlPoint, type: .withResponse) }
    static let awaitAnswer = DFUMachineAction.awaitNotification(from: controlPoint, within: .seconds(10))

    @Test func secureUploadIsEveryActionTheRunnerTakesInOrder() {
        var machine = SecureDFUStateMachine(Self.setup())
        Self.play(&machine, [
            (.start, .enableNotifications(on: .secureControlPoint)),
            // Set PRN 0 for the init packet: 02, u16 0.
            (.written, Self.request([0x02, 0x00, 0x00])),
            (.written, Self.awaitAnswer),
            // 60 02 01: Set PRN succeeded → Select command object: 06 01.
            (.notified([0x60, 0x02, 0x01]), Self.request([0x06, 0x01])),
            (.written, Self.awaitAnswer),
            // Select answer: max 256, offset 0, CRC 0 → Create command object of 5 bytes.
            (.notified([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(0) + Self.le32(0)),
             Self.request([0x01, 0x01, 0x05, 0x00, 0x00, 0x00])),
            (.written, Self.awaitAnswer),
            // 60 01 01: created → the init packet on the packet characteristic, not paced (not firmware).
            (.notified([0x60, 0x01, 0x01]), .write([Self.initPacket], to: .securePacket, type: .withoutResponse)),
            (.written, Self.request([0x03])),
            (.written, Self.awaitAnswer),
            // Checksum answer: offset 5 and the init packet's CRC-32 → Execute.
            (.notified([0x60, 0x03, 0x01] + Self.le32(5) + Self.le32(CRC32.checksum(Self.initPacket))), Self.request([0x04])),
            (.written, Self.awaitAnswer),
            // Init packet executed; PRN already 0 → Select data object: 06 02.
            (.notified([0x60, 0x04, 0x01]), Self.request([0x06, 0x02])),
            (.written, Self.awaitAnswer),
            // Select answer: max 4096, nothing yet → Create data object of 10 bytes.
            (.notified([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(0) + Self.le32(0)),
             Self.request([0x01, 0x02, 0x0A, 0x00, 0x00, 0x00])),
            (.written, Self.awaitAnswer),
            // 60 01 01: the page erase starts now (a hint for the pacing writer), then firmware flows from 0.
            (.notified([0x60, 0x01, 0x01]), .report(.flash(.objectCreated))),
            (.reported, .report(.transferStarting(offset: 0))),
            (.reported, .write([Self.image], to: .securePacket, type: .withoutResponse, paced: true)),
            (.written, .report(.progress(.uploading, bytes: 10))),
            (.reported, Self.request([0x03])),
            (.written, Self.awaitAnswer),
            // The whole image is there: the last Execute validates it.
            (.notified([0x60, 0x03, 0x01] + Self.le32(10) + Self.le32(CRC32.checksum(Self.image))),
             .report(.progress(.validating, bytes: 10))),
            (.reported, Self.request([0x04])),
            (.written, Self.awaitAnswer),
            // 60 04 01: executed, so the flash is idle; the device resets into the image.
            (.notified([0x60, 0x04, 0x01]), .report(.flash(.idle))),
            (.reported, .report(.progress(.disconnecting, bytes: 10))),
            (.reported, .finish(.awaitReset)),
        ])
    }

    /// The machine's goodbye: Abort (0C), then its answer read as what the bootloader did with it, then the aborted
    /// progress and the end.
    @Test func secureMachineAnswersACancelWithAbortAndReadsItsAnswer() {
        var machine = SecureDFUStateMachine(Self.setup())
        let awaitAbortAnswer = DFUMachineAction.awaitNotification(from: .secureControlPoint, within: .milliseconds(500))
        Self.play(&machine, [
            (.start, .enableNotifications(on: .secureControlPoint)),
            (.written, Self.request([0x02, 0x00, 0x00])),
            (.written, Self.awaitAnswer),
            (.cancelled, .lastWrite([0x0C], to: .secureControlPoint)),
            (.written, awaitAbortAnswer),
            // A receipt still on its way comes first: 60 03 (CRC) is not the answer.
            (.notified([0x60, 0x03, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]), awaitAbortAnswer),
            // 60 0C 01: Response, Abort, success (SDK 15 and later: it resets and drops the object).
            (.notified([0x60, 0x0C, 0x01]), .report(.abortAnswered(accepted: true))),
            (.reported, .report(.progress(.aborted, bytes: 0))),
            (.reported, .fail(.aborted(step: .settingPRN))),
        ])
    }

    /// SDK 12–14 bootloaders have no Abort: 60 0C 02 (op code not supported) means it keeps what it has; no answer
    /// in time says nothing, and is taken as not accepted.
    @Test func anAbortRefusedOrUnansweredIsNotAccepted() {
        for answer in [DFUMachineEvent.notified([0x60, 0x0C, 0x02]), .timedOut, .disconnected] {
            var machine = SecureDFUStateMachine(Self.setup())
            Self.play(&machine, [
                (.start, .enableNotifications(on: .secureControlPoint)),
                (.cancelled, .lastWrite([0x0C], to: .secureControlPoint)),
                (.written, .awaitNotification(from: .secureControlPoint, within: .milliseconds(500))),
                (answer, .report(.abortAnswered(accepted: false))),
                (.reported, .report(.progress(.aborted, bytes: 0))),
                (.reported, .fail(.aborted(step: .enablingNotifications))),
            ])
        }
    }

    @Test func aLostLinkWhileEnablingNotificationsMeansReconnect() {
        var machine = SecureDFUStateMachine(Self.setup())
        Self.play(&machine, [
            (.start, .enableNotifications(on: .secureControlPoint)),
            (.disconnected, .finish(.reconnect(.disconnected(step: .enablingNotifications, attempts: 1)))),
        ])
    }

    @Test func noAnswerToTheLastExecuteMeansReconnectAndLook() {
        var machine = SecureDFUStateMachine(Self.setup())
        Self.play(&machine, [
            (.start, .enableNotifications(on: .secureControlPoint)),
            (.written, Self.request([0x02, 0x00, 0x00])),
            (.written, Self.awaitAnswer),
            (.notified([0x60, 0x02, 0x01]), Self.request([0x06, 0x01])),
            (.written, Self.awaitAnswer),
            // The init packet is there and executed; the data object too, whole: Execute it again (resume).
            (.notified([0x60, 0x06, 0x01] + Self.le32(256) + Self.le32(5) + Self.le32(CRC32.checksum(Self.initPacket))),
             Self.request([0x04])),
            (.written, Self.awaitAnswer),
            (.notified([0x60, 0x04, 0x01]), Self.request([0x06, 0x02])),
            (.written, Self.awaitAnswer),
            (.notified([0x60, 0x06, 0x01] + Self.le32(4096) + Self.le32(10) + Self.le32(CRC32.checksum(Self.image))),
             .report(.progress(.validating, bytes: 10))),
            (.reported, Self.request([0x04])),
            (.written, Self.awaitAnswer),
            (.timedOut, .finish(.reconnect(.timeout(step: .validatingFirmware, after: .seconds(10))))),
        ])
    }

    @Test func legacyMachineAnswersACancelWithReset() {
        var machine = LegacyDFUStateMachine(Self.setup(mode: .legacyBootloader(LegacyDFUVersion(major: 0, minor: 8))))
        Self.play(&machine, [
            (.start, .enableNotifications(on: .legacyControlPoint)),
            // Start DFU of an application: 01 04, then the three sizes on the packet characteristic.
            (.written, .write([[0x01, 0x04]], to: .legacyControlPoint, type: .withResponse)),
            (.written, .write([[0, 0, 0, 0, 0, 0, 0, 0, 0x0A, 0, 0, 0]], to: .legacyPacket, type: .withoutResponse)),
            (.written, .awaitNotification(from: .legacyControlPoint, within: .seconds(10))),
            // Reset: 06.
            (.cancelled, .lastWrite([0x06], to: .legacyControlPoint)),
            (.written, .report(.progress(.aborted, bytes: 0))),
            (.reported, .fail(.aborted(step: .startingDFU))),
        ])
    }

    @Test func legacyMachineResetsTheBootloaderWhenItIsInTheWrongState() {
        var machine = LegacyDFUStateMachine(Self.setup(mode: .legacyBootloader(LegacyDFUVersion(major: 0, minor: 8))))
        Self.play(&machine, [
            (.start, .enableNotifications(on: .legacyControlPoint)),
            (.written, .write([[0x01, 0x04]], to: .legacyControlPoint, type: .withResponse)),
            (.written, .write([[0, 0, 0, 0, 0, 0, 0, 0, 0x0A, 0, 0, 0]], to: .legacyPacket, type: .withoutResponse)),
            (.written, .awaitNotification(from: .legacyControlPoint, within: .seconds(10))),
            // 10 01 02: Start DFU, invalid state → Reset (06) and run the part again.
            (.notified([0x10, 0x01, 0x02]), .lastWrite([0x06], to: .legacyControlPoint)),
            (.written, .finish(.restart)),
        ])
    }

    @Test func legacyMachineRestartsNoMoreAfterTheOptionsAttempts() {
        var setup = Self.setup(mode: .legacyBootloader(LegacyDFUVersion(major: 0, minor: 8)))
        setup.restarts = setup.options.objectAttempts
        var machine = LegacyDFUStateMachine(setup)
        Self.play(&machine, [
            (.start, .enableNotifications(on: .legacyControlPoint)),
            (.written, .write([[0x01, 0x04]], to: .legacyControlPoint, type: .withResponse)),
            (.written, .write([[0, 0, 0, 0, 0, 0, 0, 0, 0x0A, 0, 0, 0]], to: .legacyPacket, type: .withoutResponse)),
            (.written, .awaitNotification(from: .legacyControlPoint, within: .seconds(10))),
            (.notified([0x10, 0x01, 0x02]),
             .fail(.remote(step: .startingDFU, request: "Start DFU", status: .legacy(.invalidState)))),
        ])
    }

    @Test func buttonlessMachineNamesTheBootloaderThenJumps() {
        var setup = Self.setup(mode: .buttonless(.withoutBonds))
        setup.work = .enterBootloader(alternativeName: "Dfu1")
        var machine = ButtonlessStateMachine(setup)
        let endpoint = DFUEndpoint.buttonlessWithoutBonds
        Self.play(&machine, [
            (.start, .enableNotifications(on: endpoint)),
            // Set Advertising Name: 02, length 4, "Dfu1".
            (.written, .write([[0x02, 0x04, 0x44, 0x66, 0x75, 0x31]], to: endpoint, type: .withResponse)),
            (.written, .awaitNotification(from: endpoint, within: .seconds(10))),
            // 20 02 01: named → Enter Bootloader: 01.
            (.notified([0x20, 0x02, 0x01]), .write([[0x01]], to: endpoint, type: .withResponse)),
            (.written, .awaitNotification(from: endpoint, within: .seconds(10))),
            // The application resets before answering: that is the jump.
            (.disconnected, .finish(.jumped(bootloaderName: "Dfu1"))),
        ])
    }

    @Test func legacyApplicationJumpsOnStartDFUWithoutAnAnswer() {
        var setup = Self.setup(mode: .legacyApplication)
        setup.work = .enterBootloader(alternativeName: nil)
        var machine = LegacyJumpStateMachine(setup)
        Self.play(&machine, [
            (.start, .enableNotifications(on: .legacyControlPoint)),
            // Start DFU of an application: 01 04.
            (.written, .write([[0x01, 0x04]], to: .legacyControlPoint, type: .withResponse)),
            (.disconnected, .finish(.jumped(bootloaderName: nil))),
        ])
    }

    // MARK: - The loop drives a protocol with several requests in flight

    /// A protocol shaped like SMP: requests `[sequence]` written without response, up to `window` in flight,
    /// each answered by a notification `[sequence]` in any order; a request unanswered within its timeout is
    /// written again. The runner knows none of this.
    struct WindowedMachine: DFUProtocolMachine {
        let count = 5
        let window = 3
        let timeout: Duration = .milliseconds(300)
        var next: UInt8 = 0
        var inFlight: Set<UInt8> = []
        var answered: Set<UInt8> = []
        var started = false

        init(_ setup: DFUMachineSetup) {}

        var step: DFUStep { .sendingFirmware }

        mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction {
            switch event {
            case .start:
                return .enableNotifications(on: .securePacket)
            case .written where !started:
                started = true
                return fill()
            case .written:
                return .awaitNotification(from: .securePacket, within: timeout)
            case .notified(let bytes):
                guard let sequence = bytes.first, inFlight.remove(sequence) != nil else {
                    return .fail(.unexpectedResponse(step: step, bytes: bytes))
                }
                answered.insert(sequence)
                if answered.count == count { return .finish(.completed) }
                return fill()
            case .timedOut:
                // Retransmit the oldest request still unanswered.
                guard let oldest = inFlight.min() else { return .fail(.timeout(step: step, after: timeout)) }
                return .write([[oldest]], to: .securePacket, type: .withoutResponse)
            case .disconnected:
                return .finish(.reconnect(.disconnected(step: step, attempts: 1)))
            case .cancelled:
                return .fail(.aborted(step: step))
            case .delayElapsed, .reported:
                return .fail(.unexpectedResponse(step: step, bytes: []))
            }
        }

        /// Writes as many new requests as the window allows, or waits for the next answer.
        private mutating func fill() -> DFUMachineAction {
            var frames: [[UInt8]] = []
            while inFlight.count < window, Int(next) < count {
                inFlight.insert(next)
                frames.append([next])
                next += 1
            }
            if frames.isEmpty { return .awaitNotification(from: .securePacket, within: timeout) }
            return .write(frames, to: .securePacket, type: .withoutResponse)
        }
    }

    /// Answers every frame written to the packet characteristic with the same frame, in reverse order of a
    /// batch, and loses the first copy of request 1.
    final class EchoTransport: DFUTransport {
        let written = Mutex<[[UInt8]]>([])
        let pending = Mutex<[[UInt8]]>([])
        let lost = Mutex<Set<UInt8>>([1])

        func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer { MachineProtocolTests.peer }
        func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {}
        func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
            written.withLock { $0.append(bytes) }
            let dropped = lost.withLock { $0.remove(bytes[0]) != nil }
            if !dropped { pending.withLock { $0.insert(bytes, at: 0) } }
        }
        func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { [] }
        func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
            guard let bytes = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { throw .timedOut }
            return DFUNotification(endpoint: .securePacket, bytes: bytes)
        }
        func waitForDisconnection(within timeout: Duration) async -> Bool { true }
        func disconnect() async {}
    }

    @Test func theLoopDrivesAProtocolWithSeveralRequestsInFlightAndRetransmissions() async throws {
        let transport = EchoTransport()
        let runner = DFURunner(transport: transport, clock: ContinuousClock())
        var context = DFURunner<EchoTransport, ContinuousClock>.UpdateContext(
            start: ContinuousClock().now, totalParts: 1, names: DFUAlternativeNameGenerator(seed: 1))
        let outcome = try await runner.drive(WindowedMachine(Self.setup()), context: &context)
        #expect(outcome == .completed)
        // Three in flight at once; each answer lets one more go; the lost request 1 is written again after
        // its timeout, once the others were answered.
        #expect(transport.written.withLock { $0 } == [[0], [1], [2], [3], [4], [1]])
    }
}
