import DFUFormats

/// The uploads: one image after the other, a window of chunk requests in flight, answers matched by
/// sequence number, the server's offset followed, and a timeout's resend.
extension SMPUploadMachine {
    /// Starts image `index`'s upload; before the first, finds out whether the device reassembles when that
    /// decides the frame size.
    mutating func startUpload(_ index: Int) -> DFUMachineAction {
        let parameters = parameters ?? .fallback
        let deviceLimit = parameters.bufferSize
        let framingBasis: SMPFraming.Basis
        if plan.frameSize != nil {
            framingBasis = .option
        } else if deviceLimit <= writeLength {
            framingBasis = .bufferFitsOneWrite
        } else if let reassembly {
            framingBasis = reassembly
        } else {
            // Zephyr's default build takes each write as one frame: ask before splitting any frame.
            let probe = SMPReassemblyProbe(sequence: sequence &+ 1)
            self.probe = probe
            return send(probe.request, phase: .probingReassembly(index))
        }
        let splits = framingBasis == .reassembles || framingBasis == .known(true)
        let preferred = plan.frameSize ?? (splits ? deviceLimit : writeLength)
        let frameLimit = min(preferred, deviceLimit)
        let windowSize = plan.window ?? SMPUploadWindow.defaultSize(bufferCount: parameters.bufferCount)
        let upload = SMPUploadWindow(image: plan.images[index], frameLimit: frameLimit, window: windowSize,
                                     upgradeOnly: plan.upgradeOnly)
        guard upload.firstChunkCapacity >= min(32, plan.images[index].bytes.count) else {
            return .fail(.unsupportedDevice(reason: "an SMP frame of \(frameLimit) bytes (buf_size \(deviceLimit), "
                + "write length \(writeLength)) cannot hold the first upload chunk with the image header"))
        }
        window = upload
        phase = .uploading(index)
        step = .sendingFirmware
        transferReported = false
        offsetMovedBack = 0
        let framing = SMPFraming(frameLimit: frameLimit, writeLength: writeLength, basis: framingBasis)
        guard framing != self.framing else { return fillWindow() }
        self.framing = framing
        return sequenced([.report(.smpFraming(framing)), fillWindow()])
    }

    mutating func fillWindow() -> DFUMachineAction {
        guard var upload = window else { return .awaitNotification(from: .smp, within: responseTimeout) }
        let retransmittedBefore = upload.retransmissions
        let chunks = upload.fill(sequence: &sequence)
        statistics.retransmissions += upload.retransmissions - retransmittedBefore
        statistics.maxInFlight = max(statistics.maxInFlight, upload.maxInFlight)
        window = upload
        guard !chunks.isEmpty else { return .awaitNotification(from: .smp, within: responseTimeout) }
        var writes: [[UInt8]] = []
        for (sequence, chunk) in chunks {
            statistics.requests += 1
            guard let frame = try? SMPRequest.upload(chunk).frame(sequence: sequence, version: version) else {
                return .fail(.invalidPart(.application, reason: "an SMP upload request could not be encoded"))
            }
            writes += split(frame.bytes)
        }
        return .write(writes, to: .smp, type: .withoutResponse)
    }

    /// What one frame did to the upload.
    enum UploadStep {
        /// Not an answer to a chunk in flight.
        case ignored
        /// The window moved (progress, resynchronisation, fresh start).
        case moved
        /// The upload ends here: this action (a failure, or what follows the last chunk).
        case finished(DFUMachineAction)
    }

    /// Handles one frame during an upload; reports to send are added to `reports`.
    mutating func uploadAnswered(_ frame: SMPFrame, reports: inout [DFUMachineAction]) -> UploadStep {
        guard case .uploading(let index) = phase, var upload = window,
              SMPCommand.upload.isAnswered(by: frame.header),
              let sent = upload.inFlight.first(where: { $0.sequence == frame.header.sequence })
        else {
            statistics.ignoredAnswers += 1
            return .ignored
        }
        let request = "image upload of image \(plan.images[index].image)"
        let response: SMPResponse
        do {
            response = try SMPResponse(frame: frame, answering: .upload)
        } catch {
            return .finished(.fail(error.dfuError(step: step, frame: frame)))
        }
        let offset: Int?
        let match: Bool?
        switch response {
        case .upload(let o, let m):
            (offset, match) = (o, m)
        case .failure(let error):
            return .finished(.fail(.remote(step: step, request: request, status: .smp(error))))
        default:
            return .finished(.fail(.unexpectedResponse(step: step, bytes: frame.bytes)))
        }
        let acknowledgedBefore = upload.acknowledged
        let answer = upload.answer(sequence: frame.header.sequence, offset: offset, match: match)
        window = upload
        if !transferReported {
            // Firmware flows from where the device stood: the chunk's offset, or where it resumed.
            transferReported = true
            var from = sent.offset
            if case .resynchronised(let to) = answer { from = to }
            reports.append(.report(.transferStarting(offset: bytesBefore(index) + from)))
        }
        switch answer {
        case .ignored:
            statistics.ignoredAnswers += 1
            return .ignored
        case .progressed, .freshStart:
            stalls = 0
            return .moved
        case .resynchronised(let to):
            stalls += 1
            if to < acknowledgedBefore {
                // Below an offset the device had already acknowledged (lost chunks only ever hold it where it is). A
                // working server does that only after losing its upload state (a reset, another client): a few times
                // at most; one that keeps doing it would keep dfu sending for ever, since the progress in between
                // resets the stall count.
                offsetMovedBack += 1
                if offsetMovedBack > Self.offsetMovesBackAllowed {
                    return .finished(.fail(.offsetMovedBack(image: plan.images[index].image, times: offsetMovedBack)))
                }
            }
            if stalls > plan.attempts * 4 {
                return .finished(.fail(.timeout(step: step, after: responseTimeout * plan.attempts)))
            }
            return .moved
        case .complete:
            stalls = 0
            window = nil
            statuses[index] = .needsMark
            reports.append(.report(.smpPart(index: index, bytes: plan.images[index].bytes.count)))
            reports.append(.report(.progress(.uploading, bytes: bytesOnDevice)))
            let next = nextStep()
            return .finished(leading(reports, next))
        case .hashMismatch:
            return .finished(.fail(.remote(step: step, request: request,
                                           status: .smpImage(.hashMismatch(image: plan.images[index].image)))))
        case .invalidOffset(let offset?):
            // Beyond the image (or negative): the server's `off` can never be that.
            let range = DeviceFieldRange(SMPFieldRange.offset.field, 0...plan.images[index].bytes.count)
            return .finished(.fail(range.failure(String(offset))))
        case .invalidOffset(nil):
            return .finished(.fail(.unexpectedResponse(step: step, bytes: frame.bytes)))
        }
    }

    /// The first action now, the others after the runner answers each one.
    /// `actions` first, then `action` and what it queued.
    mutating func leading(_ actions: [DFUMachineAction], _ action: DFUMachineAction) -> DFUMachineAction {
        let all = actions + [action] + queue
        queue = Array(all.dropFirst())
        return all.first ?? action
    }

    mutating func sequenced(_ actions: [DFUMachineAction]) -> DFUMachineAction {
        guard let first = actions.first else { return .awaitNotification(from: .smp, within: responseTimeout) }
        queue = Array(actions.dropFirst())
        return first
    }

    mutating func timedOut() -> DFUMachineAction {
        stalls += 1
        if case .uploading = phase, var upload = window {
            guard stalls <= plan.attempts else {
                return .fail(.timeout(step: step, after: responseTimeout))
            }
            upload.timedOut()
            window = upload
            return fillWindow()
        }
        if case .awaitingDecoyAnswer(let index) = phase {
            // No answer to the decoy: nothing of it is held any longer, or never will be answered.
            stalls = 0
            return startUpload(index)
        }
        guard let pending else { return .fail(.timeout(step: step, after: responseTimeout)) }
        if case .probingReassembly(let index) = phase {
            // No answer to a frame in two writes: keep every frame within one write, which any server takes. A late
            // answer (an echo) matches no upload and is ignored.
            self.pending = nil
            stalls = 0
            reassembly = .probeUnanswered
            return startUpload(index)
        }
        guard pending.attempts + 1 < plan.attempts else {
            if phase == .readingParameters {
                // Some servers never answer an unknown command; go on with the fallback.
                parameters = .fallback
                return send(.imageState, phase: .readingImagesBefore)
            }
            if phase == .readingSlotInfo {
                self.pending = nil
                return afterSlotInfoUnavailable()
            }
            return .fail(.timeout(step: step, after: responseTimeout))
        }
        // The same request again, under a new sequence number: a late answer to the old one is ignored.
        return send(pending.request, phase: phase, attempts: pending.attempts + 1)
    }

    /// Bytes of the plan's images before image `index`.
    func bytesBefore(_ index: Int) -> Int {
        plan.images.prefix(index).reduce(0) { $0 + $1.bytes.count }
    }

    /// Bytes of the plan on the device, as far as this connection knows.
    var bytesOnDevice: Int {
        var total = 0
        for (index, image) in plan.images.enumerated() {
            if case .uploading(let current) = phase, current == index, let window {
                total += window.acknowledged
            } else if index < statuses.count, statuses[index] != .needsUpload {
                total += image.bytes.count
            }
        }
        return total
    }
}
