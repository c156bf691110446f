import CBOR
import DFUCore

/// A fault of the link or the device, counted in upload requests (1 is the first chunk request).
enum SMPFault: Hashable, CustomStringConvertible {
    /// The answer to the n-th upload request is lost.
    case dropAnswer(Int)
    /// The n-th upload request never reaches the device.
    case dropRequest(Int)
    /// The answer to the n-th upload request arrives twice.
    case duplicateAnswer(Int)
    /// The answer to the n-th upload request arrives only after the client's timeout.
    case lateAnswer(Int)
    /// The link drops right after the device took the n-th upload request (its answer is lost).
    case disconnectAfter(Int)
    /// The device resets right after the n-th upload request (the upload state is lost, nothing swaps).
    case resetAfter(Int)
    /// The answer to the reset request is lost (the device resets anyway).
    case dropResetAnswer
    /// The first complete upload's hash check fails (`match` false).
    case mismatchOnce
    /// The answers to one batch of writes arrive joined in one notification (several frames in one).
    case coalescedAnswers

    var description: String {
        switch self {
        case .dropAnswer(let n): "answer to chunk \(n) lost"
        case .dropRequest(let n): "chunk \(n) lost on the way"
        case .duplicateAnswer(let n): "answer to chunk \(n) twice"
        case .lateAnswer(let n): "answer to chunk \(n) late"
        case .disconnectAfter(let n): "link lost after chunk \(n)"
        case .resetAfter(let n): "device reset after chunk \(n)"
        case .dropResetAnswer: "answer to the reset lost"
        case .mismatchOnce: "hash mismatch once"
        case .coalescedAnswers: "answers joined in one notification"
        }
    }
}

/// Drives ``SMPUploadMachine`` against a ``ScriptedSMPServer`` the way the runner does, over as many
/// connections as the machines ask for (a reconnection after `.reconnect`, a new machine with one
/// more restart after `.restart`), with faults.
struct SMPTestRun {
    enum Result: Equatable, CustomStringConvertible {
        case completed
        case failed(DFUError)
        case stuck

        var description: String {
            switch self {
            case .completed: "completed"
            case .failed(let error): "failed: \(error)"
            case .stuck: "stuck"
            }
        }
    }

    private(set) var result = Result.stuck
    private(set) var restarts = 0
    private(set) var reconnects = 0
    private(set) var marks: [SMPRequest] = []
    private(set) var maxInFlight = 0
    private(set) var retransmissions = 0
    private(set) var ignoredAnswers = 0
    private(set) var largestFrame = 0
    private(set) var largestWrite = 0
    private(set) var uploadedBytes: [UInt8] = []
    private(set) var firstImagesBefore: [SMPImageSlotState]?
    private(set) var lastImagesAfter: [SMPImageSlotState]?
    private(set) var progress: [Int] = []

    init(plan: SMPUploadPlan, server: ScriptedSMPServer, writeLength: Int = 495, faults: Set<SMPFault> = []) {
        if faults.contains(.mismatchOnce) { server.corruptOnce = true }
        var uploadRequests = 0
        var restartsSinceLinkLoss = 0
        connections: for _ in 0..<12 {
            var machine = SMPUploadMachine(
                SMPUploadMachineTests.setup(plan, restarts: restartsSinceLinkLoss, writeLength: writeLength))
            var assembler = SMPFrameAssembler()
            var notifications: [[UInt8]] = []
            var held: [[UInt8]] = []
            var linkDown = false
            var event = DFUMachineEvent.start
            defer {
                if firstImagesBefore == nil { firstImagesBefore = machine.imagesBefore }
                if let after = machine.imagesAfter { lastImagesAfter = after }
                maxInFlight = max(maxInFlight, machine.statistics.maxInFlight)
                retransmissions += machine.statistics.retransmissions
                ignoredAnswers += machine.statistics.ignoredAnswers
            }
            for _ in 0..<100_000 {
                switch machine.handle(event) {
                case .enableNotifications:
                    event = .written
                case .write(let pieces, _, _, _):
                    let queuedBefore = notifications.count
                    defer {
                        if faults.contains(.coalescedAnswers), notifications.count - queuedBefore > 1 {
                            let joined = notifications[queuedBefore...].flatMap { $0 }
                            notifications.removeSubrange(queuedBefore...)
                            notifications.append(joined)
                        }
                    }
                    for piece in pieces where !linkDown {
                        largestWrite = max(largestWrite, piece.count)
                        for frame in (try? assembler.append(piece)) ?? [] {
                            largestFrame = max(largestFrame, frame.bytes.count)
                            var answers: [[UInt8]]
                            if frame.header.group == .image, frame.header.command == 1 {
                                uploadRequests += 1
                                let n = uploadRequests
                                if faults.contains(.dropRequest(n)) { continue }
                                answers = server.receive(frame.bytes)
                                if faults.contains(.dropAnswer(n)) { answers = [] }
                                if faults.contains(.duplicateAnswer(n)) { answers += answers }
                                if faults.contains(.lateAnswer(n)) {
                                    held += answers
                                    answers = []
                                }
                                if faults.contains(.disconnectAfter(n)) { linkDown = true }
                                if faults.contains(.resetAfter(n)) {
                                    server.reset()
                                    linkDown = true
                                }
                            } else {
                                if frame.header.group == .image, frame.header.command == 0,
                                   frame.header.operation == .write, let body = try? frame.decodedBody() {
                                    let hash = body["hash"]?.bytesValue
                                    marks.append(body["confirm"]?.boolValue == true ? .confirm(hash: hash)
                                                 : .test(hash: hash ?? []))
                                }
                                answers = server.receive(frame.bytes)
                                if frame.header.group == .os, frame.header.command == 5, faults.contains(.dropResetAnswer) {
                                    answers = []
                                }
                            }
                            if linkDown { break }
                            for answer in answers {
                                notifications += stride(from: 0, to: answer.count, by: writeLength).map {
                                    Array(answer[$0..<min($0 + writeLength, answer.count)])
                                }
                            }
                        }
                    }
                    event = linkDown ? .disconnected : .written
                case .lastWrite:
                    event = .written
                case .awaitNotification:
                    if linkDown {
                        event = .disconnected
                    } else if !notifications.isEmpty {
                        event = .notified(notifications.removeFirst())
                    } else if server.resetRequested {
                        event = .disconnected  // the device reset after (not) answering
                    } else {
                        event = .timedOut
                        notifications += held  // what was late arrives now
                        held = []
                    }
                case .wait:
                    event = .delayElapsed
                case .report(let report):
                    if case .progress(.uploading, let bytes) = report { progress.append(bytes) }
                    event = .reported
                case .finish(.restart):
                    if server.resetRequested { server.reset() }
                    restarts += 1
                    restartsSinceLinkLoss += 1
                    continue connections
                case .finish(.reconnect):
                    reconnects += 1
                    restartsSinceLinkLoss = 0
                    continue connections
                case .finish(let outcome):
                    result = outcome == .completed ? .completed : .failed(.unsupportedDevice(reason: "\(outcome)"))
                    uploadedBytes = server.received
                    return
                case .fail(let error):
                    result = .failed(error)
                    return
                }
            }
            return
        }
    }
}
