import DFUFormats
// Sending MCUboot images to an SMP server: the same loop as the nRF5 parts, one machine per connection.

extension DFURunner {
    // MARK: - SMP

    /// Sends the images of `plan` to the SMP (MCUmgr) server `device` selects and ends as the plan says,
    /// reconnecting after the device's reset and after lost links; each connection runs a new
    /// ``SMPUploadMachine``, which finds from the device's image list and upload offsets where it stands.
    ///
    /// On failure the link is closed before the error is thrown.
    public func update(_ plan: SMPUploadPlan, device: DFUDeviceSelector) async throws(DFUError) -> DFUUpdateReport {
        do {
            return try await runSMP(plan, device: device)
        } catch {
            await transport.disconnect()
            throw error
        }
    }

    private func runSMP(_ plan: SMPUploadPlan, device: DFUDeviceSelector) async throws(DFUError) -> DFUUpdateReport {
        guard !plan.images.isEmpty else { throw .invalidPart(.application, reason: "there is no MCUboot image to send") }
        var context = UpdateContext(start: clock.now, totalParts: plan.images.count,
                                    names: DFUAlternativeNameGenerator(seed: options.nameSeed))
        context.partBytes = plan.totalBytes
        context.smpImageSizes = plan.images.map(\.bytes.count)
        context.setDeadline(options.deadline, bytes: plan.totalBytes)
        report(.connecting, part: 1, context: context, bytes: 0, total: plan.totalBytes)
        // A device an interrupted update left in the Bare Metal option's firmware loader advertises at another address:
        // taken only when nothing is heard at the address named, and only if it is such a loader (checked before any
        // write by the machine: `requiresFirmwareLoader`).
        let selector = withFirmwareLoaderFallback(device)
        var peer = try await connect(DFUConnectParameters(
            selector: selector, scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout,
            uuids: options.uuids), step: .connecting)
        let atFallback = selector.isFallback(peer.address)
        try await requireSMP(peer, for: "an MCUboot image")
        var restarts = 0
        var reconnections = 0
        // Whether the last connection was lost rather than ended by the device's reset.
        var reconnected = false
        // The addresses to look for next: the device's, and once it was reset into its firmware loader, the loader's.
        var addresses = [peer.address] + (atFallback ? device.addresses : [])
        var enteredLoader = false
        var requiresLoader = atFallback
        while true {
            // After the reset, the image list says whether the images swapped in.
            report(restarts > 0 ? .checkingImages : .starting, part: 1, context: context, bytes: 0, total: plan.totalBytes)
            context.meter.end()
            var setup = DFUMachineSetup(.uploadImages(plan), options: options, peer: peer, mode: .smpServer,
                                        restarts: restarts, enteredFirmwareLoader: enteredLoader)
            setup.requiresFirmwareLoader = requiresLoader
            let outcome: DFUMachineOutcome
            do {
                outcome = try await drive(SMPUploadMachine(setup), context: &context)
            } catch .unsupportedDevice(let reason) where requiresLoader && reason == SMPUploadMachine.notAFirmwareLoader {
                // Another device at the fallback address: left alone, and the device named was not found.
                throw .deviceNotFound(selector: selector.exact, after: options.scanTimeout)
            }
            requiresLoader = false
            switch outcome {
            case .jumped:
                // The application reset into its MCUboot firmware loader: find the loader, then carry on there.
                await transport.disconnect()
                report(.waitingForDevice, part: 1, context: context, bytes: 0, total: plan.totalBytes)
                peer = try await findFirmwareLoader(of: peer.address)
                enteredLoader = true
                if !addresses.contains(peer.address) { addresses.append(peer.address) }
                continue
            case .awaitReset, .completed:
                await transport.disconnect()
                context.report.partsSent = [.application]
                context.report.smpImages = context.smpImages ?? []
                context.report.bytesSent = plan.totalBytes
                // The meter counts every connection's transfer (``TransferMeter/end()`` keeps what it measured).
                context.report.bytesTransferred = context.meter.bytesSent
                context.report.transferTime = context.meter.transferTime
                context.report.elapsed = context.start.duration(to: clock.now)
                context.smpPart = plan.images.count - 1
                context.smpPartBytes = plan.images.last?.bytes.count ?? 0
                report(.completed, part: 1, context: context, bytes: plan.totalBytes, total: plan.totalBytes)
                return context.report
            case .restart:
                // The machine reset the device (the swap): the next machine finds the images it marked running.
                restarts += 1
                reconnected = false
            case .reconnect(let error):
                reconnected = true
                try countReconnection(after: error, reconnections: &reconnections, context: &context)
            }
            await transport.disconnect()
            report(restarts > 0 && !reconnected ? .waitingForDevice : .connecting, part: 1, context: context, bytes: 0,
                   total: plan.totalBytes)
            let parameters = DFUConnectParameters(
                selector: DFUDeviceSelector(addresses: addresses, serviceUUIDs: [options.uuids.smpService]),
                scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout, uuids: options.uuids)
            while true {
                do {
                    peer = try await connect(parameters, step: .connecting)
                    break
                } catch .deviceNotFound where reconnections < options.reconnectAttempts {
                    // After a reset MCUboot swaps the images before the application advertises again, which for
                    // a large image can take longer than one scan: scan again, counted as a reconnection.
                    reconnections += 1
                    context.report.reconnections += 1
                }
            }
        }
    }

    /// Throws unless the device is an SMP server (and not an nRF5 bootloader or application, which keep their
    /// own path): for firmware (`isFirmware`) an nRF5 DFU device is a ``DFUError/firmwareMismatch(reason:)``;
    /// otherwise, and for a device with neither, an ``DFUError/unsupportedDevice(reason:)``. `what` names what
    /// was to be done, e.g. "an MCUboot image".
    func requireSMP(_ peer: DFUPeer, for what: String, isFirmware: Bool = true) async throws(DFUError) {
        let mode: DFUDeviceMode?
        do {
            mode = try await detectMode(peer)
        } catch {
            mode = nil
        }
        if mode == .smpServer { return }
        if let mode, isFirmware {
            throw .firmwareMismatch(reason: "\(peer.address) is an nRF5 \(mode.isApplication ? "application with a buttonless DFU service" : "DFU bootloader"), "
                + "not an SMP (MCUmgr) server; \(what) goes only to an SMP server")
        }
        if let mode {
            throw .unsupportedDevice(reason: "\(peer.address) is an nRF5 \(mode.isApplication ? "application" : "DFU bootloader"), "
                + "not an SMP (MCUmgr) server; \(what) goes only to an SMP server")
        }
        throw .unsupportedDevice(reason: "\(peer.address) has no SMP (MCUmgr) service; \(what) goes only to an SMP server")
    }
}
