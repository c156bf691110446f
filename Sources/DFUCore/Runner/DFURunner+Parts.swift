// Sending one part: the Secure and Legacy loops, with reconnection and resume.

extension DFURunner {
    // MARK: - Parts

    /// Sends one part, reconnecting and resuming after link losses; returns the last bootloader peer.
    func upload(_ part: FirmwarePart, peer: DFUPeer, mode: Mode, context: inout UpdateContext) async throws(DFUError) -> DFUPeer {
        var peer = peer
        var reconnections = 0
        var restarts = 0
        var lastStep = DFUStep.connecting
        context.meter = TransferMeter()
        while true {
            report(.starting, part: context.partNumber, context: context, bytes: 0, total: part.image.count)
            let outcome: PartOutcome
            context.meter.end()
            switch mode {
            case .legacyBootloader(let version):
                outcome = try await runLegacy(part, version: version, restarted: restarts >= options.objectAttempts,
                                              context: &context)
            default:
                outcome = try await runSecure(part, peer: peer, context: &context)
            }
            switch outcome {
            case .completed:
                return peer
            case .restart:
                restarts += 1
            case .linkLost(let error):
                if case .disconnected(let step, _) = error { lastStep = step }
                if case .timeout(let step, _) = error { lastStep = step }
                // A Legacy bootloader whose link was lost mid-transfer refuses Start DFU until it is reset
                // (SDK 11 `dfu_start_pkt_handle`): after every lost link it may be reset again.
                restarts = 0
                guard reconnections < options.reconnectAttempts else {
                    if case .disconnected(let step, _) = error { throw .disconnected(step: step, attempts: reconnections + 1) }
                    throw error
                }
                reconnections += 1
                context.report.reconnections += 1
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

    enum PartOutcome {
        case completed
        case linkLost(DFUError)
        case restart
    }

    func runSecure(_ part: FirmwarePart, peer: DFUPeer, context: inout UpdateContext) async throws(DFUError) -> PartOutcome {
        do {
            try await transport.enableNotifications(on: .secureControlPoint)
        } catch .disconnected {
            return .linkLost(.disconnected(step: .enablingNotifications, attempts: 1))
        } catch { throw wrap(error, step: .enablingNotifications) }
        var machine = SecureDFUStateMachine(
            kind: part.kind, initPacket: part.initPacket, image: part.image,
            configuration: .init(options: options, maximumWriteLength: peer.maximumWriteLength))
        var action = machine.start()
        let origin = clock.now
        var pacer = options.flashPacing.map { FlashPacer(pacing: $0, slowdowns: context.pacingSlowdowns) }
        var losses = 0
        while true {
            if machine.lossesDetected > losses, pacer != nil {
                // The flash is slower than the pacer assumed: assume it twice as slow from now on.
                losses = machine.lossesDetected
                pacer?.slowDown(at: origin.duration(to: clock.now))
                context.pacingSlowdowns += 1
            }
            if Task.isCancelled {
                try? await transport.write(SecureDFURequest.abort.bytes, to: .secureControlPoint, type: .withResponse)
                await transport.disconnect()
                report(.aborted, part: context.partNumber, context: context, bytes: machine.bytesExecuted, total: part.image.count)
                throw .aborted(step: machine.step)
            }
            switch action {
            case .send(let request):
                if request == .execute, machine.step == .validatingFirmware {
                    report(.validating, part: context.partNumber, context: context, bytes: part.image.count, total: part.image.count)
                }
                do {
                    let executedBefore = machine.bytesExecuted
                    try await transport.write(request.bytes, to: .secureControlPoint, type: .withResponse)
                    action = try await awaitNotification(from: .secureControlPoint, within: options.responseTimeout)
                        .map { machine.received($0) } ?? machine.timedOut(after: options.responseTimeout)
                    if case .create(.data, _) = request { pacer?.objectCreated(at: origin.duration(to: clock.now)) }
                    if request == .execute, machine.bytesExecuted > executedBefore {
                        // SDK 15–17 answer a data Execute only once every queued erase and write is done.
                        pacer?.flashIdle(at: origin.duration(to: clock.now))
                    }
                } catch .disconnected {
                    action = machine.disconnected()
                } catch {
                    throw wrap(error, step: machine.step)
                }
            case .writePackets(let packets, let awaitReceipt):
                do {
                    let isFirmware = machine.step == .sendingFirmware
                    if isFirmware { beginTransfer(packets, bytesAfter: machine.bytesSent, context: &context) }
                    for (index, packet) in packets.enumerated() {
                        if isFirmware, let pacer {
                            // Hold the packet until the bootloader has a free receive buffer for it; when it
                            // must wait, wait for several buffers so as to wake once for several packets.
                            let now = origin.duration(to: clock.now)
                            let earliest = pacer.nextWrite(at: now, pending: packets.count - index)
                            if earliest > now { try? await clock.sleep(until: origin.advanced(by: earliest), tolerance: nil) }
                        }
                        try await transport.write(packet, to: .securePacket, type: .withoutResponse)
                        if isFirmware { pacer?.packetWritten(bytes: packet.count, at: origin.duration(to: clock.now)) }
                    }
                    if machine.step == .sendingFirmware {
                        report(.uploading, part: context.partNumber, context: &context, bytes: machine.bytesSent, total: part.image.count)
                    }
                    if awaitReceipt {
                        action = try await awaitNotification(from: .secureControlPoint, within: options.receiptTimeout)
                            .map { machine.received($0) } ?? machine.timedOut(after: options.receiptTimeout)
                    } else {
                        action = machine.packetsWritten()
                    }
                } catch .disconnected {
                    action = machine.disconnected()
                } catch {
                    throw wrap(error, step: machine.step)
                }
            case .awaitNotification:
                do {
                    action = try await awaitNotification(from: .secureControlPoint, within: options.responseTimeout)
                        .map { machine.received($0) } ?? machine.timedOut(after: options.responseTimeout)
                } catch .disconnected {
                    action = machine.disconnected()
                } catch {
                    throw wrap(error, step: machine.step)
                }
            case .wait(let duration):
                do { try await clock.sleep(for: duration) } catch { continue }
                action = machine.delayElapsed()
            case .awaitReset:
                context.report.fellBackToPRN1 = context.report.fellBackToPRN1 || machine.fellBackToPRN1
                report(.disconnecting, part: context.partNumber, context: context, bytes: part.image.count, total: part.image.count)
                _ = await transport.waitForDisconnection(within: options.responseTimeout)
                await transport.disconnect()
                return .completed
            case .fail(let error):
                context.report.fellBackToPRN1 = context.report.fellBackToPRN1 || machine.fellBackToPRN1
                if case .disconnected = error { return .linkLost(error) }
                // No answer to the last Execute: the device may have reset into the image without the link
                // loss being seen yet. Reconnect and look (the new application, or the bootloader to resume).
                if case .timeout(step: .validatingFirmware, _) = error { return .linkLost(error) }
                // The link stays up: after a rejected system part the application goes over it.
                throw error
            }
        }
    }

    func runLegacy(_ part: FirmwarePart, version: LegacyDFUVersion?, restarted: Bool,
                           context: inout UpdateContext) async throws(DFUError) -> PartOutcome {
        do {
            try await transport.enableNotifications(on: .legacyControlPoint)
        } catch .disconnected {
            return .linkLost(.disconnected(step: .enablingNotifications, attempts: 1))
        } catch { throw wrap(error, step: .enablingNotifications) }
        var machine = LegacyDFUStateMachine(part: part, configuration: .init(
            packetReceiptNotifications: options.packetReceiptNotifications, version: version, restarted: restarted))
        var action = machine.start()
        while true {
            if Task.isCancelled {
                try? await transport.write(LegacyDFURequest.reset.bytes, to: .legacyControlPoint, type: .withResponse)
                await transport.disconnect()
                report(.aborted, part: context.partNumber, context: context, bytes: machine.bytesSent, total: part.image.count)
                throw .aborted(step: machine.step)
            }
            switch action {
            case .send(let request):
                if request == .validate {
                    report(.validating, part: context.partNumber, context: context, bytes: part.image.count, total: part.image.count)
                }
                do {
                    try await transport.write(request.bytes, to: .legacyControlPoint, type: .withResponse)
                    if request.expectsResponse {
                        action = try await awaitNotification(from: .legacyControlPoint, within: options.responseTimeout)
                            .map { machine.received($0) } ?? machine.timedOut(after: options.responseTimeout)
                    } else {
                        action = machine.requestWritten()
                    }
                } catch .disconnected {
                    action = machine.disconnected()
                } catch {
                    throw wrap(error, step: machine.step)
                }
            case .writePackets(let packets, let awaitReceipt):
                do {
                    if machine.step == .sendingFirmware, !packets.isEmpty {
                        beginTransfer(packets, bytesAfter: machine.bytesSent, context: &context)
                    }
                    for packet in packets {
                        try await transport.write(packet, to: .legacyPacket, type: .withoutResponse)
                    }
                    if machine.step == .sendingFirmware, !packets.isEmpty {
                        report(.uploading, part: context.partNumber, context: &context, bytes: machine.bytesSent, total: part.image.count)
                    }
                    if awaitReceipt {
                        // A receipt comes within a few connection events unless packets were lost: do not wait
                        // out the response timeout for it.
                        let timeout = machine.awaitsPacketReceipt ? options.receiptTimeout : options.responseTimeout
                        action = try await awaitNotification(from: .legacyControlPoint, within: timeout)
                            .map { machine.received($0) } ?? machine.timedOut(after: timeout)
                    } else {
                        action = machine.packetsWritten()
                    }
                } catch .disconnected {
                    action = machine.disconnected()
                } catch {
                    throw wrap(error, step: machine.step)
                }
            case .wait(let duration):
                do { try await clock.sleep(for: duration) } catch { continue }
                action = machine.delayElapsed()
            case .resetAndRestart:
                try? await transport.write(LegacyDFURequest.reset.bytes, to: .legacyControlPoint, type: .withResponse)
                _ = await transport.waitForDisconnection(within: options.responseTimeout)
                return .restart
            case .awaitReset:
                report(.disconnecting, part: context.partNumber, context: context, bytes: part.image.count, total: part.image.count)
                _ = await transport.waitForDisconnection(within: options.responseTimeout)
                await transport.disconnect()
                return .completed
            case .fail(let error):
                if case .disconnected = error { return .linkLost(error) }
                throw error
            }
        }
    }
}
