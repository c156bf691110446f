import DFUFormats
// Sending one part with reconnection and resume, and the one loop that drives every protocol machine.

extension DFURunner {
    // MARK: - Parts

    /// Sends one part, reconnecting and resuming after link losses; returns the last bootloader peer.
    func upload(_ part: FirmwarePart, peer: DFUPeer, mode: DFUDeviceMode, context: inout UpdateContext) async throws(DFUError) -> DFUPeer {
        var peer = peer
        var reconnections = 0
        var restarts = 0
        var lastStep = DFUStep.connecting
        context.meter = TransferMeter()
        context.partBytes = part.image.count
        while true {
            report(.starting, part: context.partNumber, context: context, bytes: 0, total: part.image.count)
            context.meter.end()
            let setup = DFUMachineSetup(.sendPart(part), options: options, peer: peer, mode: mode, restarts: restarts)
            switch try await drive(mode.machine(setup), context: &context) {
            case .awaitReset, .completed, .jumped:
                return peer
            case .restart:
                restarts += 1
            case .reconnect(let error):
                if case .disconnected(let step, _) = error { lastStep = step }
                if case .timeout(let step, _) = error { lastStep = step }
                // After a lost link the bootloader may need resetting again: the restarts start over.
                restarts = 0
                try countReconnection(after: error, reconnections: &reconnections, context: &context)
            }
            await transport.disconnect()
            report(.connecting, part: context.partNumber, context: context, bytes: 0, total: part.image.count)
            // After the last Execute the device may have reset into the new image: what the host cached of the
            // bootloader's GATT table at this address may be stale, so discover afresh.
            let parameters = DFUConnectParameters(
                selector: DFUDeviceSelector(addresses: [peer.address], serviceUUIDs: options.uuids.bootloaderServices),
                scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout, uuids: options.uuids,
                discardCachedServices: lastStep == .validatingFirmware)
            let bootloader = peer
            do {
                peer = try await connect(parameters, step: .findingBootloader)
            } catch .bootloaderNotFound where lastStep == .validatingFirmware {
                // The link dropped after the last Execute and no bootloader advertises any more:
                // the device activated the image and reset into it.
                return bootloader
            }
            if lastStep == .validatingFirmware, !peer.endpoints.contains(.secureControlPoint),
                !peer.endpoints.contains(.legacyControlPoint) {
                // The last Execute's answer was lost, and what answers at the address now is an application
                // (a buttonless one still advertises the DFU service): the device installed the image and
                // started it, as Nordic's libraries count a disconnect after the last Execute.
                await transport.disconnect()
                return bootloader
            }
        }
    }

    /// Counts one more reconnection after `error`, or throws it (a lost link with the attempts made) when the
    /// options allow no more.
    func countReconnection(after error: DFUError, reconnections: inout Int, context: inout UpdateContext) throws(DFUError) {
        guard reconnections < options.reconnectAttempts else {
            if case .disconnected(let step, _) = error { throw .disconnected(step: step, attempts: reconnections + 1) }
            throw error
        }
        reconnections += 1
        context.report.reconnections += 1
    }

    // MARK: - The machine loop

    /// Drives `machine` over the current connection until it finishes, carrying out each of its actions and
    /// answering with what happened; throws what the machine fails with, or a transport failure it cannot
    /// be told about. After `.awaitReset`, `.restart` and `.jumped` the device's disconnection is waited for.
    func drive<Machine: DFUProtocolMachine>(_ machine: Machine, context: inout UpdateContext) async throws(DFUError)
        -> DFUMachineOutcome {
        var machine = machine
        return try await drive(&machine, context: &context)
    }

    /// ``drive(_:context:)`` on a machine the caller reads afterwards (what it learnt from the device).
    func drive<Machine: DFUProtocolMachine>(_ machine: inout Machine, context: inout UpdateContext) async throws(DFUError)
        -> DFUMachineOutcome {
        var writer = FlashPacedWriter(transport: transport, clock: clock, pacing: options.flashPacing,
                                      slowdowns: context.pacingSlowdowns)
        // nil: the call was cut short by the update's cancellation, and the machine hears only of that.
        var event: DFUMachineEvent? = .start
        var cancelled = false
        while true {
            if let deadline = context.deadline, clock.now >= deadline {
                // However busy the device keeps the machine, its update ends here.
                throw .deadlineExceeded(step: machine.step, after: context.deadlineDuration)
            }
            var action: DFUMachineAction
            if !cancelled, Task.isCancelled {
                // Interrupted: the machine takes what came first, then answers the cancellation with its goodbye
                // (Secure Abort and its answer, Legacy Reset), which goes over the link in tasks of its own.
                if let event { _ = machine.handle(event) }
                cancelled = true
                action = machine.handle(.cancelled)
            } else if let event {
                action = machine.handle(event)
            } else {
                throw .aborted(step: machine.step)
            }
            if cancelled, let answer = await farewell(action) {
                event = answer
                continue
            }
            switch action {
            case .enableNotifications(let endpoint):
                event = try await linkEvent(step: machine.step, cancelled: cancelled) { () async throws(DFUTransportError) in
                    try await transport.enableNotifications(on: endpoint)
                    return .written
                }
            case .write(let frames, let endpoint, let type, let paced):
                event = try await linkEvent(step: machine.step, cancelled: cancelled) { () async throws(DFUTransportError) in
                    try await writer.write(frames, to: endpoint, type: type, paced: paced)
                    return .written
                }
            case .lastWrite(let frame, let endpoint):
                try? await transport.write(frame, to: endpoint, type: .withResponse)
                event = .written
            case .awaitNotification(let endpoint, var timeout):
                if let deadline = context.deadline {
                    // Not past the deadline: the next turn ends the update there.
                    timeout = max(.zero, min(timeout, clock.now.duration(to: deadline)))
                }
                let within = timeout
                event = try await linkEvent(step: machine.step, cancelled: cancelled) { () async throws(DFUTransportError) in
                    try await awaitNotification(from: endpoint, within: within).map { .notified($0) } ?? .timedOut
                }
            case .wait(let duration):
                // Cut short by a cancellation, which the next turn hands to the machine.
                try? await clock.sleep(for: duration)
                event = .delayElapsed
            case .report(let report):
                apply(report, writer: &writer, context: &context)
                event = .reported
            case .finish(let outcome):
                switch outcome {
                case .awaitReset, .jumped:
                    _ = await transport.waitForDisconnection(within: options.responseTimeout)
                    await transport.disconnect()
                case .restart:
                    _ = await transport.waitForDisconnection(within: options.responseTimeout)
                case .reconnect, .completed:
                    break
                }
                return outcome
            case .fail(let error):
                throw error
            }
        }
    }

    /// The event a call over the link gives the machine: what the call returns, `.disconnected` when the link went,
    /// nil when the update's cancellation cut the call short (the machine hears only of that); any other failure
    /// ends the update at `step`.
    private func linkEvent(
        step: DFUStep, cancelled: Bool, _ call: () async throws(DFUTransportError) -> DFUMachineEvent
    ) async throws(DFUError) -> DFUMachineEvent? {
        do {
            return try await call()
        } catch where !cancelled && Task.isCancelled {
            return nil
        } catch .disconnected {
            return .disconnected
        } catch {
            throw wrap(error, step: step)
        }
    }

    /// After an interrupt: carries out an action of the machine's goodbye (its writes, the wait for the answer within
    /// the machine's own short timeout) in a task of its own, which the update's cancellation does not reach (the
    /// caller's task, being cancelled, would have its calls cut short), and returns what happened; nil for an action
    /// the loop carries out as always (a report, the end). No waits: the goodbye goes at once.
    private func farewell(_ action: DFUMachineAction) async -> DFUMachineEvent? {
        let runner = self
        switch action {
        case .write(let frames, let endpoint, let type, _):
            return await Task { () -> DFUMachineEvent in
                for frame in frames {
                    do { try await runner.transport.write(frame, to: endpoint, type: type) } catch { return .disconnected }
                }
                return .written
            }.value
        case .lastWrite(let frame, let endpoint):
            await Task { try? await runner.transport.write(frame, to: endpoint, type: .withResponse) }.value
            return .written
        case .awaitNotification(let endpoint, let timeout):
            return await Task { () -> DFUMachineEvent in
                do {
                    return try await runner.awaitNotification(from: endpoint, within: timeout).map { .notified($0) } ?? .timedOut
                } catch {
                    return .disconnected
                }
            }.value
        case .wait:
            return .delayElapsed
        case .enableNotifications, .report, .finish, .fail:
            return nil
        }
    }

    /// Carries out what a machine reports: progress (with the speed while uploading), the start of the transfer
    /// for the speed, flash hints for the pacing writer, and fallbacks for the update's report.
    private func apply(_ report: DFUMachineReport, writer: inout FlashPacedWriter<Transport, RunnerClock>,
                       context: inout UpdateContext) {
        switch report {
        case .progress(.uploading, let bytes):
            self.report(.uploading, part: context.partNumber, context: &context, bytes: bytes, total: context.partBytes)
        case .progress(let state, let bytes):
            self.report(state, part: context.partNumber, context: context, bytes: bytes, total: context.partBytes)
        case .transferStarting(let offset):
            guard !context.meter.isMeasuring else { return }
            context.meter.begin(at: context.start.duration(to: clock.now), offset: offset)
        case .flash(let event):
            writer.note(event)
            context.pacingSlowdowns = writer.slowdowns
        case .fellBackToPRN1:
            context.report.fellBackToPRN1 = true
        case .smpFraming(let framing):
            context.report.smpFraming = framing
        case .smpPart(let index, let bytes):
            context.smpPart = index
            context.smpPartBytes = bytes
        case .smpImages(let images):
            context.smpImages = images
        case .abortAnswered(let accepted):
            context.abortAccepted = accepted
        }
    }
}
