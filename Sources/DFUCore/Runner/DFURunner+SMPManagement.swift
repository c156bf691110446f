import DFUFormats
// SMP (MCUmgr) management outside an upload: the image list, test/confirm, reset, erase; one request per
// connection, through the same loop as the uploads.

extension DFURunner {
    // MARK: - SMP management

    /// The image list of the SMP server `device` selects (image group, command 0, read; zephyr
    /// `img_mgmt_state_read` in `img_mgmt_state.c`): one entry per occupied slot.
    public func images(device: DFUDeviceSelector) async throws(DFUError) -> [SMPImageSlotState] {
        let response = try await manage(.imageState, device: device)
        guard case .imageState(let list) = response else { throw .unexpectedResponse(step: .smp(.imageState), bytes: []) }
        return list
    }

    /// Marks an image for test (`.test(hash:)`) or confirms one (`.confirm(hash:)`; without a hash, the running
    /// image) on the SMP server `device` selects (image group, command 0, write; `img_mgmt_state_write`), and
    /// returns the image list the server answers with.
    public func setImageState(_ request: SMPRequest, device: DFUDeviceSelector) async throws(DFUError) -> [SMPImageSlotState] {
        switch request {
        case .test, .confirm: break
        default: throw .invalidPart(.application, reason: "\(request) does not set an image's state")
        }
        let response = try await manage(request, device: device)
        guard case .imageState(let list) = response else { throw .unexpectedResponse(step: .smp(.setImageState), bytes: []) }
        return list
    }

    /// Resets the SMP server `device` selects (OS group, command 5; `os_mgmt_reset` in zephyr `os_mgmt.c`
    /// answers, then resets): MCUboot swaps in an image marked pending. Returns once the device has dropped
    /// the link (or the response timeout passed).
    public func reset(device: DFUDeviceSelector) async throws(DFUError) {
        _ = try await manage(.reset, device: device)
    }

    /// Erases a slot of the SMP server `device` selects (image group, command 5; zephyr `img_mgmt_erase` in
    /// `img_mgmt.c`): `slot` counted over all images (image × 2 + 0 or 1), nil for the server's default (the running
    /// image's other slot). The server refuses a slot in use (the running one, a pending one, the image a revert
    /// needs) with IMG_MGMT_ERR_NO_FREE_SLOT.
    public func erase(slot: Int?, device: DFUDeviceSelector) async throws(DFUError) {
        _ = try await manage(.erase(slot: slot), device: device)
    }

    /// Connects, checks the device is an SMP server, sends `request` and returns its answer (nil for a reset
    /// the device went through before its answer got out). The link is closed before returning or throwing.
    private func manage(_ request: SMPRequest, device: DFUDeviceSelector) async throws(DFUError) -> SMPResponse? {
        do {
            let response = try await runManagement(request, device: device)
            await transport.disconnect()
            return response
        } catch {
            await transport.disconnect()
            throw error
        }
    }

    private func runManagement(_ request: SMPRequest, device: DFUDeviceSelector) async throws(DFUError) -> SMPResponse? {
        var context = UpdateContext(start: clock.now, totalParts: 1, names: DFUAlternativeNameGenerator(seed: options.nameSeed))
        report(.connecting, part: 1, context: context, bytes: 0, total: 0)
        let peer = try await connect(DFUConnectParameters(
            selector: device, scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout,
            uuids: options.uuids), step: .connecting)
        try await requireSMP(peer, for: "an SMP \(request.command) request", isFirmware: false)
        let setup = DFUMachineSetup(.manage, options: options, peer: peer, mode: .smpServer)
        var machine = SMPManagementMachine(setup, request: request)
        _ = try await drive(&machine, context: &context)
        report(.completed, part: 1, context: context, bytes: 0, total: 0)
        return machine.response
    }
}
