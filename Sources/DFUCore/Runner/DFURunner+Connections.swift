import DFUFormats
// Connecting, finding the bootloader again, and switching applications into it.

extension DFURunner {
    // MARK: - Connections

    func connect(_ parameters: DFUConnectParameters, step: DFUStep) async throws(DFUError) -> DFUPeer {
        if Task.isCancelled { throw .aborted(step: step) }
        var attempt = 1
        while true {
            do {
                return try await connectOnce(parameters, step: step)
            } catch let error where attempt < options.connectionAttempts && error.isConnectionFailure {
                attempt += 1
            }
        }
    }

    func connectOnce(_ parameters: DFUConnectParameters, step: DFUStep) async throws(DFUError) -> DFUPeer {
        do {
            return try await transport.connect(parameters)
        } catch .deviceNotFound {
            if step == .findingBootloader { throw .bootloaderNotFound(selector: parameters.selector, after: parameters.scanTimeout) }
            throw .deviceNotFound(selector: parameters.selector, after: parameters.scanTimeout)
        } catch {
            throw wrap(error, step: step)
        }
    }

    /// The selector for the nRF5 device `device` selects: the same, and when it names one address only,
    /// also that device's DFU bootloader at the address + 1 (last byte), taken only when nothing is heard
    /// at the address and only advertising a bootloader's service (Secure FE59, Legacy 1530): a device an
    /// interrupted update left in its bootloader. ``detectMode(_:selectedBy:)`` then checks it is one.
    func withBootloaderFallback(_ device: DFUDeviceSelector) -> DFUDeviceSelector {
        guard device.addresses.count == 1, let address = device.addresses.first, device.name == nil,
              !device.nameMatchesAnyAddress, device.fallbackAddresses.isEmpty else { return device }
        var selector = device
        selector.fallbackAddresses = [address.bootloaderAddress]
        selector.fallbackServiceUUIDs = options.uuids.bootloaderServices
        return selector
    }

    /// The mode of `peer`, connected to through `selector`. A device found at a fallback address (the
    /// device named was not heard) must be a DFU bootloader: an application there (buttonless, Legacy, an
    /// SMP server, no DFU at all) is another device, so it is left alone and the device named is not found.
    func detectMode(_ peer: DFUPeer, selectedBy selector: DFUDeviceSelector) async throws(DFUError) -> DFUDeviceMode {
        guard selector.isFallback(peer.address) else { return try await detectMode(peer) }
        do {
            let mode = try await detectMode(peer)
            switch mode {
            case .secureBootloader, .legacyBootloader: return mode
            case .buttonless, .legacyApplication, .smpServer: break
            }
        } catch .unsupportedDevice {
            // No DFU service a bootloader would have: not the device's bootloader either.
        }
        await transport.disconnect()
        throw .deviceNotFound(selector: selector.exact, after: options.scanTimeout)
    }

    /// Finds the bootloader after a jump or a reset: the user's address/name if given, else the
    /// same address and/or the address + 1 rule, advertising a DFU service.
    func findBootloader(near address: DFUDeviceAddress, name: String?, sameAddressOnly: Bool,
                                previousApp: DFUDeviceAddress?) async throws(DFUError) -> DFUPeer {
        var selector = DFUDeviceSelector(serviceUUIDs: options.uuids.bootloaderServices)
        if let override = options.bootloaderAddress {
            selector.addresses = [override]
        } else if options.bootloaderName == nil {
            selector.addresses = sameAddressOnly ? [address] : [address, address.bootloaderAddress]
        }
        selector.name = options.bootloaderName ?? name
        // The alternative name was chosen by us for this jump: whoever advertises it is the bootloader,
        // at the predicted address or not.
        selector.nameMatchesAnyAddress = options.bootloaderAddress == nil && options.bootloaderName == nil && name != nil
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
    func findDeviceBetweenParts(bootloader: DFUDeviceAddress, application: DFUDeviceAddress) async throws(DFUError)
        -> (DFUPeer, DFUDeviceMode) {
        if options.bootloaderAddress != nil || options.bootloaderName != nil {
            let peer = try await findBootloader(near: bootloader, name: nil, sameAddressOnly: false, previousApp: nil)
            return (peer, try await detectMode(peer))
        }
        // The bootloader's and the application's own addresses, and the bootloader's address + 1 only for a
        // DFU bootloader (one advertising its service, checked again by ``detectMode(_:selectedBy:)``).
        var selector = DFUDeviceSelector(addresses: bootloader == application ? [bootloader] : [bootloader, application])
        if !selector.addresses.contains(bootloader.bootloaderAddress) {
            selector.fallbackAddresses = [bootloader.bootloaderAddress]
            selector.fallbackServiceUUIDs = options.uuids.bootloaderServices
        }
        let peer = try await connect(DFUConnectParameters(
            selector: selector, scanTimeout: options.scanTimeout,
            connectTimeout: options.connectTimeout, uuids: options.uuids), step: .findingBootloader)
        return (peer, try await detectMode(peer, selectedBy: selector))
    }

    /// Switches an application into its bootloader with the machine its mode calls for, and finds the bootloader.
    func enterBootloader(from peer: DFUPeer, mode: DFUDeviceMode, context: inout UpdateContext) async throws(DFUError)
        -> (DFUPeer, DFUDeviceMode) {
        if Task.isCancelled { throw .aborted(step: .enteringBootloader) }
        var name: String?
        let near: DFUDeviceAddress
        switch mode {
        case .buttonless(let variant):
            switch options.alternativeName {
            case .off: name = nil
            case .random: name = context.names.next()
            case .named(let chosen): name = chosen
            }
            near = variant.keepsAddress ? peer.address : peer.address.bootloaderAddress
        case .legacyApplication:
            near = peer.address
        case .secureBootloader, .legacyBootloader, .smpServer:
            return (peer, mode)
        }
        let setup = DFUMachineSetup(.enterBootloader(alternativeName: name), options: options, peer: peer, mode: mode)
        let outcome = try await drive(mode.machine(setup), context: &context)
        guard case .jumped(let bootloaderName) = outcome else {
            throw .unsupportedDevice(reason: "\(peer.address) did not switch to its bootloader (\(outcome))")
        }
        let found: DFUPeer
        if case .buttonless = mode {
            found = try await findBootloader(near: near, name: bootloaderName, sameAddressOnly: true, previousApp: peer.address)
        } else {
            found = try await findBootloader(near: near, name: nil, sameAddressOnly: false, previousApp: nil)
        }
        let newMode = try await detectMode(found)
        if newMode.isApplication {
            if case .legacyApplication = mode {
                throw .unsupportedDevice(reason: "\(found.address) did not come back as a bootloader; "
                    + "if it is a Legacy bootloader without a DFU Version characteristic, use --force-dfu")
            }
            throw .unsupportedDevice(reason: "\(found.address) did not come back as a bootloader")
        }
        return (found, newMode)
    }

    /// The next notification from `endpoint` (others are skipped), nil on timeout.
    func awaitNotification(from endpoint: DFUEndpoint, within timeout: Duration) async throws(DFUTransportError) -> [UInt8]? {
        while true {
            do {
                let notification = try await transport.nextNotification(within: timeout)
                if notification.endpoint == endpoint { return notification.bytes }
            } catch .timedOut {
                return nil
            }
        }
    }

    func wrap(_ error: DFUTransportError, step: DFUStep) -> DFUError {
        switch error {
        case .disconnected: .disconnected(step: step, attempts: 1)
        case .timedOut: .timeout(step: step, after: options.responseTimeout)
        case .interrupted: .aborted(step: step)
        default: .transport(step: step, error)
        }
    }
}
