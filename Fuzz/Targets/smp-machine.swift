// libFuzzer target: SMPUploadMachine driven by input-made answers. The first bytes choose the write
// length, the ending and the image sizes; then each turn the input picks the event: an answer built
// with the codec from input values (MCUmgr parameters, an image list naming the plan's hashes or
// not, an upload offset and match, an error, a reset answer), raw bytes, a timeout, a lost link or a
// cancel. Crashes if a write exceeds the write length, or a request frame exceeds the buf_size the
// machine took from the answers (384, the fallback, before one).
import CBOR
import DFUCore
import DFUFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPMachine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let writeLength = 20 + Int(input.byte() ?? 0) * 2
    let endings = SMPEnding.allCases
    let ending = endings[Int(input.byte() ?? 0) % endings.count]
    let sizes = [64 + Int(input.byte() ?? 0) * 40, 64 + Int(input.byte() ?? 0) * 30]
    let images = sizes.enumerated().map { index, count in
        SMPUploadImage(image: index, bytes: [UInt8](repeating: UInt8(index), count: count),
                       imageHash: [UInt8](repeating: UInt8(0xA0 + index), count: 32))
    }
    let plan = SMPUploadPlan(images: Array(images.prefix(1 + Int(input.byte() ?? 0) % 2)), ending: ending)
    guard let address = DFUDeviceAddress("C0:FF:EE:00:00:01") else { return 0 }
    let peer = DFUPeer(address: address, name: nil, endpoints: [.smp], serviceCount: 1,
                       maximumWriteLength: writeLength, isBonded: false)
    var restarts = 0
    var machine = SMPUploadMachine(DFUMachineSetup(.uploadImages(plan), options: DFUOptions(), peer: peer, mode: .smpServer))
    var assembler = SMPFrameAssembler()
    var lastRequest: SMPHeader?
    var event = DFUMachineEvent.start
    for _ in 0..<4_000 {
        let action = machine.handle(event)
        switch action {
        case .write(let pieces, _, _, _):
            for piece in pieces {
                if piece.count > writeLength { fatalError("a write of \(piece.count) bytes exceeds \(writeLength)") }
                for frame in (try? assembler.append(piece)) ?? [] {
                    let limit = machine.parameters?.bufferSize ?? SMPParameters.fallback.bufferSize
                    if frame.bytes.count > limit { fatalError("a frame of \(frame.bytes.count) bytes exceeds buf_size \(limit)") }
                    lastRequest = frame.header
                }
            }
            event = .written
        case .enableNotifications, .lastWrite:
            event = .written
        case .report:
            event = .reported
        case .wait:
            event = .delayElapsed
        case .finish(.restart), .finish(.reconnect):
            if case .finish(.restart) = action { restarts += 1 }
            machine = SMPUploadMachine(DFUMachineSetup(.uploadImages(plan), options: DFUOptions(), peer: peer, mode: .smpServer,
                                                       restarts: restarts))
            assembler.reset()
            event = .start
        case .finish, .fail:
            return 0
        case .awaitNotification:
            guard let choice = input.byte() else { return 0 }
            switch choice % 8 {
            case 0: event = .timedOut
            case 1: event = .disconnected
            case 2: event = .cancelled
            case 3: event = .notified(input.run(maximum: 64))
            default:
                guard let request = lastRequest,
                      let answer = answer(to: request, kind: choice, input: &input, plan: plan)
                else {
                    event = .timedOut
                    continue
                }
                event = .notified(answer)
            }
        }
    }
    return 0
}

/// An answer to `request` with input-made values, encoded by the codec.
private func answer(to request: SMPHeader, kind: UInt8, input: inout FuzzInput, plan: SMPUploadPlan) -> [UInt8]? {
    let value = Int(input.byte() ?? 0)
    var body: CBOR
    switch (request.group, request.command) {
    case (.os, 6):
        // Mostly sizes a server has; with bit 0x20 of the kind, buf_size and buf_count over CBOR's whole range
        // (the machine must refuse what is outside 64…65535 and 1…65535, never trap).
        let wide = kind & 0x20 != 0
        let count = 1 + Int(input.byte() ?? 0) % 8
        body = .map(["buf_size": wide ? input.cborValue() : .int(64 + value * 16),
                     "buf_count": wide ? input.cborValue() : .int(count)])
    case (.image, 0):
        var entries: [CBOR] = []
        for image in plan.images {
            let flags = input.byte() ?? 0
            let hash: [UInt8] = flags & 1 == 0 ? image.imageHash : [UInt8](repeating: 0, count: 32)
            let wide = kind & 0x20 != 0
            entries.append(.map(["image": wide ? input.cborValue() : .int(image.image),
                                 "slot": wide ? input.cborValue() : .int(Int(flags >> 1) & 1), "version": .text("1.0.0"),
                                 "hash": .bytes(hash), "active": .bool(flags & 4 != 0), "confirmed": .bool(flags & 8 != 0),
                                 "pending": .bool(flags & 16 != 0)]))
        }
        body = .map(["images": .array(entries)])
    case (.image, 1):
        let total = plan.images.map(\.bytes.count).max() ?? 0
        let wide = kind & 0x20 != 0
        body = kind % 8 == 7
            ? .map(["err": .map(["group": wide ? input.cborValue() : .int(1), "rc": wide ? input.cborValue() : .int(value % 40)])])
            : .map(["off": wide ? input.cborValue() : .int(value * 37 % (total + 2)), "match": .bool(value & 1 == 0)])
    case (.os, 5):
        body = .map([])
    default:
        body = .map(["rc": kind & 0x20 != 0 ? input.cborValue() : .int(value % 16)])
    }
    return try? SMPFrame(operation: request.operation.response, version: request.version, group: request.group,
                         command: request.command, sequence: kind & 0x10 == 0 ? request.sequence : request.sequence &- 1,
                         body: body).bytes
}

extension FuzzInput {
    /// ``cborInteger()`` as a CBOR item.
    mutating func cborValue() -> CBOR {
        let (major0, magnitude) = cborInteger()
        return major0 ? .unsigned(magnitude) : .negative(magnitude)
    }
}
