/// Runs a whole update: connect, switch to the bootloader, send every part in scope, each in its own
/// connection, reconnecting and resuming after link losses.
///
/// The one place that does I/O: it carries out the actions of the pure state machines over any
/// ``DFUTransport``, and takes its delays and speed measurements from an injected clock.
public struct DFURunner<Transport: DFUTransport, RunnerClock: Clock>: Sendable where RunnerClock.Duration == Duration {
    /// The link to the device.
    public let transport: Transport
    /// The clock delays and speeds use (a virtual clock in tests).
    public let clock: RunnerClock
    /// The options.
    public let options: DFUOptions
    private let onProgress: @Sendable (DFUProgress) -> Void

    /// Makes a runner; `onProgress` receives every progress value.
    public init(transport: Transport, clock: RunnerClock, options: DFUOptions = DFUOptions(),
                onProgress: @escaping @Sendable (DFUProgress) -> Void = { _ in }) {
        self.transport = transport
        self.clock = clock
        self.options = options
        self.onProgress = onProgress
    }

    /// Sends every part of `package` in scope to the device `device` selects.
    ///
    /// On failure the link is closed before the error is thrown.
    public func update(_ package: DFUPackage, device: DFUDeviceSelector) async throws(DFUError) -> DFUUpdateReport {
        do {
            return try await run(package, device: device)
        } catch {
            await transport.disconnect()
            throw error
        }
    }

    private func run(_ package: DFUPackage, device: DFUDeviceSelector) async throws(DFUError) -> DFUUpdateReport {
        let parts = package.parts.filter { options.scope.includes($0.kind) }
        guard let firstPart = parts.first else {
            throw .invalidPart(package.parts.first?.kind ?? .application,
                               reason: "the package has no part in the \(options.scope.rawValue) scope")
        }
        var context = UpdateContext(start: clock.now, totalParts: parts.count, names: DFUAlternativeNameGenerator(seed: options.nameSeed))
        report(.connecting, part: 1, context: context, bytes: 0, total: firstPart.image.count)
        var peer = try await connect(DFUConnectParameters(
            selector: device, scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout,
            uuids: options.uuids), step: .connecting)
        let applicationAddress = peer.address
        var mode = try await detectMode(peer)
        if mode.isApplication {
            report(.enablingDFUMode, part: 1, context: context, bytes: 0, total: firstPart.image.count)
            (peer, mode) = try await enterBootloader(from: peer, mode: mode, context: &context)
        }
        var index = 0
        while index < parts.count {
            let part = parts[index]
            context.partNumber = index + 1
            try checkFormat(package.format, mode: mode)
            do {
                peer = try await upload(part, peer: peer, mode: mode, context: &context)
                context.report.partsSent.append(part.kind)
                context.report.bytesSent += part.image.count
            } catch let error where error.isInitPacketRejection && part.kind.isSystem
                && parts[(index + 1)...].contains(where: { !$0.kind.isSystem }) {
                // As Nordic's libraries do: an already-installed or too old system part is skipped.
                context.report.partsSkipped.append(part.kind)
                context.totalPartsSkipped += 1
                index += 1
                continue
            }
            index += 1
            if index < parts.count {
                report(.connecting, part: index + 1, context: context, bytes: 0, total: parts[index].image.count)
                peer = try await findDeviceBetweenParts(bootloader: peer.address, application: applicationAddress)
                mode = try await detectMode(peer)
                if mode.isApplication {
                    (peer, mode) = try await enterBootloader(from: peer, mode: mode, context: &context)
                }
            }
        }
        context.report.elapsed = context.start.duration(to: clock.now)
        report(.completed, part: parts.count, context: context, bytes: parts.last?.image.count ?? 0,
               total: parts.last?.image.count ?? 0)
        return context.report
    }

    // MARK: - Modes

    private enum Mode: Sendable, Hashable {
        case secureBootloader
        case legacyBootloader(LegacyDFUVersion?)
        case buttonless(ButtonlessVariant)
        case legacyApplication

        var isApplication: Bool {
            switch self {
            case .buttonless, .legacyApplication: true
            case .secureBootloader, .legacyBootloader: false
            }
        }
    }

    private struct UpdateContext {
        var start: RunnerClock.Instant
        var totalParts: Int
        var names: DFUAlternativeNameGenerator
        var partNumber = 1
        var totalPartsSkipped = 0
        var report = DFUUpdateReport()
        var uploadStart: RunnerClock.Instant?
        var lastReport: (RunnerClock.Instant, Int)?
    }

    private func detectMode(_ peer: DFUPeer) async throws(DFUError) -> Mode {
        let endpoints = peer.endpoints
        if endpoints.contains(.secureControlPoint), endpoints.contains(.securePacket) { return .secureBootloader }
        if endpoints.contains(.buttonlessWithBonds) { return .buttonless(.withBonds) }
        if endpoints.contains(.buttonlessWithoutBonds) { return .buttonless(.withoutBonds) }
        if endpoints.contains(.legacyControlPoint) {
            var version: LegacyDFUVersion?
            if endpoints.contains(.legacyVersion) {
                let bytes: [UInt8]
                do { bytes = try await transport.read(.legacyVersion) } catch { throw wrap(error, step: .readingVersion) }
                version = LegacyDFUVersion(bytes: bytes)
                if version == nil { throw .unexpectedResponse(step: .readingVersion, bytes: bytes) }
            }
            if let version { return version.isApplication ? .legacyApplication : .legacyBootloader(version) }
            // No version characteristic (SDK ≤ 6.1): the DFU service alone means bootloader.
            if options.forceDFU || peer.serviceCount <= 1 { return .legacyBootloader(nil) }
            return .legacyApplication
        }
        if options.experimentalButtonless, endpoints.contains(.buttonlessExperimental) { return .buttonless(.experimental) }
        throw .unsupportedDevice(reason: "no Secure or Legacy DFU service or buttonless characteristic on \(peer.address)")
    }

    private func checkFormat(_ format: PackageFormat, mode: Mode) throws(DFUError) {
        switch mode {
        case .secureBootloader where format == .legacy: throw .protocolMismatch(package: .legacy, device: .secure)
        case .legacyBootloader where format == .secure: throw .protocolMismatch(package: .secure, device: .legacy)
        default: return
        }
    }

    // MARK: - Connections

    private func connect(_ parameters: DFUConnectParameters, step: DFUStep) async throws(DFUError) -> DFUPeer {
        var attempt = 1
        while true {
            do {
                return try await connectOnce(parameters, step: step)
            } catch let error where attempt < options.connectionAttempts && error.isConnectionFailure {
                attempt += 1
            }
        }
    }

    private func connectOnce(_ parameters: DFUConnectParameters, step: DFUStep) async throws(DFUError) -> DFUPeer {
        do {
            return try await transport.connect(parameters)
        } catch .deviceNotFound {
            if step == .findingBootloader { throw .bootloaderNotFound(selector: parameters.selector, after: parameters.scanTimeout) }
            throw .unsupportedDevice(reason: "no device matching \(parameters.selector) was found within \(parameters.scanTimeout.dfuSeconds)")
        } catch {
            throw wrap(error, step: step)
        }
    }

    /// Finds the bootloader after a jump or a reset: the user's address/name if given, else the
    /// same address and/or the address + 1 rule, advertising a DFU service.
    private func findBootloader(near address: DFUDeviceAddress, name: String?, sameAddressOnly: Bool,
                                previousApp: DFUDeviceAddress?) async throws(DFUError) -> DFUPeer {
        var selector = DFUDeviceSelector(serviceUUIDs: options.uuids.bootloaderServices)
        if let override = options.bootloaderAddress {
            selector.addresses = [override]
        } else if options.bootloaderName == nil {
            selector.addresses = sameAddressOnly ? [address] : [address, address.bootloaderAddress]
        }
        selector.name = options.bootloaderName ?? name
        var parameters = DFUConnectParameters(selector: selector, scanTimeout: options.scanTimeout,
                                              connectTimeout: options.connectTimeout, uuids: options.uuids)
        let peer = try await connect(parameters, step: .findingBootloader)
        let stillApplication = peer.endpoints.contains(.buttonlessWithBonds) || peer.endpoints.contains(.buttonlessWithoutBonds)
        guard stillApplication, peer.address == previousApp else { return peer }
        // Same address as the application and its services again: a stale GATT cache. Discover afresh.
        await transport.disconnect()
        parameters.discardCachedServices = true
        parameters.selector = .address(peer.address)
        let fresh = try await connect(parameters, step: .findingBootloader)
        if fresh.endpoints.contains(.buttonlessWithBonds) || fresh.endpoints.contains(.buttonlessWithoutBonds) {
            throw .unsupportedDevice(reason: "\(fresh.address) still shows its application's services after the jump to the bootloader")
        }
        return fresh
    }

    /// After a part the device resets: into its bootloader (same address or + 1) when the application
    /// was invalidated (SoftDevice updates), or back into the application (bootloader-only updates),
    /// which is then switched again.
    private func findDeviceBetweenParts(bootloader: DFUDeviceAddress, application: DFUDeviceAddress) async throws(DFUError) -> DFUPeer {
        if options.bootloaderAddress != nil || options.bootloaderName != nil {
            return try await findBootloader(near: bootloader, name: nil, sameAddressOnly: false, previousApp: nil)
        }
        var addresses = [bootloader, bootloader.bootloaderAddress]
        if !addresses.contains(application) { addresses.append(application) }
        return try await connect(DFUConnectParameters(
            selector: DFUDeviceSelector(addresses: addresses), scanTimeout: options.scanTimeout,
            connectTimeout: options.connectTimeout, uuids: options.uuids), step: .findingBootloader)
    }

    private func enterBootloader(from peer: DFUPeer, mode: Mode, context: inout UpdateContext) async throws(DFUError)
        -> (DFUPeer, Mode) {
        switch mode {
        case .buttonless(let variant):
            let name: String?
            switch options.alternativeName {
            case .off: name = nil
            case .random: name = context.names.next()
            case .named(let chosen): name = chosen
            }
            let bootloaderName = try await runButtonless(variant, alternativeName: name)
            _ = await transport.waitForDisconnection(within: options.responseTimeout)
            await transport.disconnect()
            let found = try await findBootloader(near: variant.keepsAddress ? peer.address : peer.address.bootloaderAddress,
                                                 name: bootloaderName, sameAddressOnly: true, previousApp: peer.address)
            let newMode = try await detectMode(found)
            if newMode.isApplication { throw .unsupportedDevice(reason: "\(found.address) did not come back as a bootloader") }
            return (found, newMode)
        case .legacyApplication:
            do {
                try await transport.enableNotifications(on: .legacyControlPoint)
            } catch { throw wrap(error, step: .enablingNotifications) }
            do {
                try await transport.write(LegacyDFURequest.startDFU(.application).bytes, to: .legacyControlPoint, type: .withResponse)
            } catch .disconnected {
                // The application may reset before acknowledging.
            } catch { throw wrap(error, step: .enteringBootloader) }
            _ = await transport.waitForDisconnection(within: options.responseTimeout)
            await transport.disconnect()
            let found = try await findBootloader(near: peer.address, name: nil, sameAddressOnly: false, previousApp: nil)
            let newMode = try await detectMode(found)
            if newMode.isApplication { throw .unsupportedDevice(reason: "\(found.address) did not come back as a bootloader") }
            return (found, newMode)
        case .secureBootloader, .legacyBootloader:
            return (peer, mode)
        }
    }

    private func runButtonless(_ variant: ButtonlessVariant, alternativeName: String?) async throws(DFUError) -> String? {
        do {
            try await transport.enableNotifications(on: variant.endpoint)
        } catch { throw wrap(error, step: .enablingNotifications) }
        var machine = ButtonlessStateMachine(variant: variant, alternativeName: alternativeName)
        var action = machine.start()
        while true {
            switch action {
            case .send(let request):
                do {
                    try await transport.write(request.bytes, to: variant.endpoint, type: .withResponse)
                    action = try await awaitNotification(from: variant.endpoint, within: options.responseTimeout).map {
                        machine.received($0)
                    } ?? machine.timedOut(after: options.responseTimeout)
                } catch .disconnected {
                    action = machine.disconnected()
                } catch {
                    throw wrap(error, step: machine.step)
                }
            case .jumped(let name):
                return name
            case .fail(let error):
                throw error
            }
        }
    }

    /// The next notification from `endpoint` (others are skipped), nil on timeout.
    private func awaitNotification(from endpoint: DFUEndpoint, within timeout: Duration) async throws(DFUTransportError) -> [UInt8]? {
        while true {
            do {
                let notification = try await transport.nextNotification(within: timeout)
                if notification.endpoint == endpoint { return notification.bytes }
            } catch .timedOut {
                return nil
            }
        }
    }

    private func wrap(_ error: DFUTransportError, step: DFUStep) -> DFUError {
        switch error {
        case .disconnected: .disconnected(step: step, attempts: 1)
        case .timedOut: .timeout(step: step, after: options.responseTimeout)
        default: .transport(step: step, error)
        }
    }

    // MARK: - Parts

    /// Sends one part, reconnecting and resuming after link losses; returns the last bootloader peer.
    private func upload(_ part: FirmwarePart, peer: DFUPeer, mode: Mode, context: inout UpdateContext) async throws(DFUError) -> DFUPeer {
        var peer = peer
        var reconnections = 0
        var restarted = false
        var lastStep = DFUStep.connecting
        context.uploadStart = nil
        context.lastReport = nil
        while true {
            report(.starting, part: context.partNumber, context: context, bytes: 0, total: part.image.count)
            let outcome: PartOutcome
            switch mode {
            case .legacyBootloader(let version):
                outcome = try await runLegacy(part, version: version, restarted: restarted, context: &context)
            default:
                outcome = try await runSecure(part, peer: peer, context: &context)
            }
            switch outcome {
            case .completed:
                return peer
            case .restart:
                restarted = true
            case .linkLost(let error):
                if case .disconnected(let step, _) = error { lastStep = step }
                guard reconnections < options.reconnectAttempts else {
                    if case .disconnected(let step, _) = error { throw .disconnected(step: step, attempts: reconnections + 1) }
                    throw error
                }
                reconnections += 1
                context.report.reconnections += 1
            }
            await transport.disconnect()
            report(.connecting, part: context.partNumber, context: context, bytes: 0, total: part.image.count)
            let parameters = DFUConnectParameters(
                selector: DFUDeviceSelector(addresses: [peer.address], serviceUUIDs: options.uuids.bootloaderServices),
                scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout, uuids: options.uuids)
            do {
                peer = try await connect(parameters, step: .findingBootloader)
            } catch .bootloaderNotFound where lastStep == .validatingFirmware {
                // The link dropped after the last Execute and no bootloader advertises any more:
                // the device activated the image and reset into it.
                return peer
            }
        }
    }

    private enum PartOutcome {
        case completed
        case linkLost(DFUError)
        case restart
    }

    private func runSecure(_ part: FirmwarePart, peer: DFUPeer, context: inout UpdateContext) async throws(DFUError) -> PartOutcome {
        do {
            try await transport.enableNotifications(on: .secureControlPoint)
        } catch .disconnected {
            return .linkLost(.disconnected(step: .enablingNotifications, attempts: 1))
        } catch { throw wrap(error, step: .enablingNotifications) }
        var machine = SecureDFUStateMachine(
            kind: part.kind, initPacket: part.initPacket, image: part.image,
            configuration: .init(options: options, maximumWriteLength: peer.maximumWriteLength))
        var action = machine.start()
        while true {
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
                    try await transport.write(request.bytes, to: .secureControlPoint, type: .withResponse)
                    action = try await awaitNotification(from: .secureControlPoint, within: options.responseTimeout)
                        .map { machine.received($0) } ?? machine.timedOut(after: options.responseTimeout)
                } catch .disconnected {
                    action = machine.disconnected()
                } catch {
                    throw wrap(error, step: machine.step)
                }
            case .writePackets(let packets, let awaitReceipt):
                do {
                    for packet in packets {
                        try await transport.write(packet, to: .securePacket, type: .withoutResponse)
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
                // The link stays up: after a rejected system part the application goes over it.
                throw error
            }
        }
    }

    private func runLegacy(_ part: FirmwarePart, version: LegacyDFUVersion?, restarted: Bool,
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
                    for packet in packets {
                        try await transport.write(packet, to: .legacyPacket, type: .withoutResponse)
                    }
                    if machine.step == .sendingFirmware, !packets.isEmpty {
                        report(.uploading, part: context.partNumber, context: &context, bytes: machine.bytesSent, total: part.image.count)
                    }
                    if awaitReceipt {
                        action = try await awaitNotification(from: .legacyControlPoint, within: options.responseTimeout)
                            .map { machine.received($0) } ?? machine.timedOut(after: options.responseTimeout)
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

    // MARK: - Progress

    private func report(_ state: DFUState, part: Int, context: UpdateContext, bytes: Int, total: Int) {
        onProgress(DFUProgress(state: state, part: part, totalParts: context.totalParts - context.totalPartsSkipped,
                               bytesSent: bytes, totalBytes: total))
    }

    private func report(_ state: DFUState, part: Int, context: inout UpdateContext, bytes: Int, total: Int) {
        let now = clock.now
        let start = context.uploadStart ?? now
        if context.uploadStart == nil { context.uploadStart = now }
        var current = 0.0
        if let (lastTime, lastBytes) = context.lastReport {
            let seconds = lastTime.duration(to: now).dfuSecondsValue
            if seconds > 0 { current = Double(bytes - lastBytes) / seconds }
        }
        let elapsed = start.duration(to: now).dfuSecondsValue
        let average = elapsed > 0 ? Double(bytes) / elapsed : 0
        context.lastReport = (now, bytes)
        onProgress(DFUProgress(state: state, part: part, totalParts: context.totalParts - context.totalPartsSkipped,
                               bytesSent: bytes, totalBytes: total, currentSpeed: current, averageSpeed: average))
    }
}
