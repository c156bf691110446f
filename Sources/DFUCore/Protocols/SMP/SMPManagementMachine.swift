/// One SMP (MCUmgr) management request over one connection, outside an upload: read the image list,
/// mark an image for test or confirm it, or reset the device. A ``DFUProtocolMachine`` on the runner's
/// one loop, like ``SMPUploadMachine``, whose framing it shares:
///
/// 1. notifications on the SMP characteristic;
/// 2. the request, split across writes of the peer's write length; the answer joined from notifications
///    by ``SMPFrameAssembler`` and matched by sequence number and command (others are ignored);
/// 3. a timeout sends the request again under a new sequence number, up to `attempts` times; an answer
///    of MGMT_ERR_UNSUPPORTED_TOO_NEW sends it again in SMP version 1 (zephyr `smp.c`);
/// 4. an error answer fails with ``DFURemoteStatus/smp(_:)``; a reset ends with `.restart` (the device
///    answers, then resets: `os_mgmt_reset` in zephyr `os_mgmt.c`), everything else with `.completed`,
///    the answer kept in ``response``.
///
/// A link lost before the answer fails the request, except for a reset, whose answer may not get out
/// before the device goes (then the reset is taken as done).
public struct SMPManagementMachine: Sendable {
    /// Where the machine is.
    public private(set) var step: DFUStep = .enablingNotifications
    /// The decoded answer, once it came.
    public private(set) var response: SMPResponse?

    private let request: SMPRequest
    private let responseTimeout: Duration
    private let writeLength: Int
    private let attempts: Int
    private var assembler = SMPFrameAssembler()
    private var sequence: UInt8 = 0
    private var tries = 0
    private var version = SMPVersion.version2

    /// A machine that sends `request` over the connection `setup` describes (its response timeout and the
    /// peer's write length), trying `attempts` times in all before it gives up on an unanswered request.
    public init(_ setup: DFUMachineSetup, request: SMPRequest, attempts: Int = 4) {
        self.request = request
        responseTimeout = setup.options.responseTimeout
        writeLength = max(20, setup.peer.maximumWriteLength)
        self.attempts = max(1, attempts)
    }

    /// Takes one event and returns the next action.
    public mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction {
        switch event {
        case .start:
            step = .enablingNotifications
            return .enableNotifications(on: .smp)
        case .written, .reported, .delayElapsed:
            if step == .enablingNotifications { return send() }
            return .awaitNotification(from: .smp, within: responseTimeout)
        case .notified(let bytes):
            return notified(bytes)
        case .timedOut:
            guard tries < attempts else { return .fail(.timeout(step: step, after: responseTimeout)) }
            return send()
        case .disconnected:
            if request.command == .reset, step == .smp(.reset), tries > 0 { return .finish(.restart) }
            return .fail(.disconnected(step: step, attempts: 1))
        case .cancelled:
            // Nothing to undo: a management request either happened or did not.
            return .fail(.aborted(step: step))
        }
    }

    private mutating func send() -> DFUMachineAction {
        step = .smp(request.command)
        tries += 1
        sequence &+= 1
        let bytes: [UInt8]
        do {
            bytes = try request.frame(sequence: sequence, version: version).bytes
        } catch {
            return .fail(.unexpectedResponse(step: step, bytes: []))
        }
        let writes = stride(from: 0, to: bytes.count, by: writeLength).map {
            Array(bytes[$0..<min($0 + writeLength, bytes.count)])
        }
        return .write(writes, to: .smp, type: .withoutResponse)
    }

    private mutating func notified(_ bytes: [UInt8]) -> DFUMachineAction {
        let frames: [SMPFrame]
        do {
            frames = try assembler.append(bytes)
        } catch {
            // Bytes that do not start a frame: keep waiting (a timeout sends the request again).
            return .awaitNotification(from: .smp, within: responseTimeout)
        }
        for frame in frames where frame.header.sequence == sequence && request.command.isAnswered(by: frame.header) {
            let answer: SMPResponse
            do {
                answer = try SMPResponse(frame: frame, answering: request.command)
            } catch {
                return .fail(error.dfuError(step: step, frame: frame))
            }
            if case .failure(.management(.versionTooNew, _)) = answer, version == .version2 {
                version = .version1
                tries -= 1
                return send()
            }
            if case .failure(let error) = answer {
                return .fail(.remote(step: step, request: request.description, status: .smp(error)))
            }
            response = answer
            return .finish(request.command == .reset ? .restart : .completed)
        }
        return .awaitNotification(from: .smp, within: responseTimeout)
    }
}

extension SMPManagementMachine: DFUProtocolMachine {
    /// A machine that reads the image list.
    public init(_ setup: DFUMachineSetup) {
        self.init(setup, request: .imageState)
    }
}
