import DFUFormats
// MCUboot's firmware loader mode from the runner's side: where the loader advertises, and switching an application
// into it (`dfu trigger`). The upload itself is ``SMPUploadMachine``'s (`SMPUploadMachine+FirmwareLoader.swift`).

extension DFURunner {
    // MARK: - Finding the firmware loader

    /// The selector for the SMP device `device` selects: the same, and when it names one address only, also that
    /// device's Bare Metal firmware loader (``DFUDeviceAddress/firmwareLoaderAddress``), taken only when nothing is
    /// heard at the address, and only advertising SMP and the loader's name (`--bootloader-name`, or the Bare Metal
    /// loader's default "nRF_BM_MCUmgr", `CONFIG_APP_FIRMWARE_LOADER_BLE_DEVICE_NAME`): an application there, which
    /// advertises the same service, is another device and is not even connected.
    func withFirmwareLoaderFallback(_ device: DFUDeviceSelector) -> DFUDeviceSelector {
        guard device.addresses.count == 1, let address = device.addresses.first, device.name == nil,
              !device.nameMatchesAnyAddress, device.fallbackAddresses.isEmpty else { return device }
        var selector = device
        selector.fallbackAddresses = [address.firmwareLoaderAddress]
        selector.fallbackServiceUUIDs = [options.uuids.smpService]
        selector.fallbackName = options.bootloaderName ?? Self.bareMetalLoaderName
        return selector
    }

    /// The name the Bare Metal option's firmware loader advertises unless its application set another.
    static var bareMetalLoaderName: String { "nRF_BM_MCUmgr" }

    /// Finds the MCUboot firmware loader that `application` was reset into: the user's address or name if given
    /// (`--bootloader-address`, `--bootloader-name`), else the same address (a Zephyr or nRF Connect SDK loader keeps
    /// the chip's identity) or, only when nothing is heard there, the address with bit 0 of its last byte inverted
    /// (the Bare Metal option's loader, ``DFUDeviceAddress/firmwareLoaderAddress``); in each case advertising SMP.
    /// Its name is no guide: "FW loader", "nRF_BM_MCUmgr", or one the application was given.
    func findFirmwareLoader(of application: DFUDeviceAddress) async throws(DFUError) -> DFUPeer {
        var selector = DFUDeviceSelector(serviceUUIDs: [options.uuids.smpService])
        if let override = options.bootloaderAddress {
            selector.addresses = [override]
        } else if options.bootloaderName == nil {
            selector.addresses = [application]
            selector.fallbackAddresses = [application.firmwareLoaderAddress]
            selector.fallbackServiceUUIDs = [options.uuids.smpService]
        }
        selector.name = options.bootloaderName
        let peer = try await connect(DFUConnectParameters(
            selector: selector, scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout,
            uuids: options.uuids), step: .findingBootloader)
        try await requireSMP(peer, for: "an MCUboot image")
        return peer
    }

    // MARK: - Switching into it

    /// Switches the SMP server `peer` (connected) into its MCUboot firmware loader: only one whose bootloader info
    /// says firmware loader mode; one already running its loader is returned as found. Returns the loader and whether
    /// a switch happened.
    func switchToFirmwareLoader(from peer: DFUPeer, context: inout UpdateContext) async throws(DFUError) -> (DFUPeer, Bool) {
        var info: SMPBootloaderInfo?
        do throws(DFUError) {
            if case .bootloaderInfo(let answer)? = try await ask(.bootloaderInfo(query: "mode"), of: peer, context: &context) {
                info = answer
            }
        } catch {
            // No bootloader info command (MGMT_ERR_ENOTSUP), or no answer to the query; anything else is thrown.
            guard case .remote(_, _, .smp) = error else { throw error }
        }
        guard info?.mode == .firmwareLoader else {
            let said = info.map { "its bootloader info says \($0)" } ?? "it has no bootloader info"
            throw .unsupportedDevice(reason: "\(peer.address) is an SMP (MCUmgr) server, with no nRF5 DFU bootloader or MCUboot "
                + "firmware loader to switch to (\(said)); 'dfu upload' sends it MCUboot images")
        }
        if try await runsFirmwareLoader(peer, context: &context) { return (peer, false) }
        report(.enablingDFUMode, part: 1, context: context, bytes: 0, total: 0)
        _ = try await ask(.resetWithBootMode(SMPUploadMachine.bootloaderBootMode), of: peer, context: &context)
        await transport.disconnect()
        let loader = try await findFirmwareLoader(of: peer.address)
        guard try await runsFirmwareLoader(loader, context: &context) else {
            throw .unsupportedDevice(reason: "\(loader.address) came back as its application after the reset into its firmware "
                + "loader: its SMP reset ignores boot_mode (Zephyr before 4.2, or MCUMGR_GRP_OS_RESET_BOOT_MODE off), or "
                + "MCUboot found no valid firmware loader")
        }
        return (loader, true)
    }

    /// Whether the connected SMP server runs an MCUboot firmware loader: its image list shows slot 1 running (an
    /// application of that mode runs slot 0, and usually has no image list at all).
    private func runsFirmwareLoader(_ peer: DFUPeer, context: inout UpdateContext) async throws(DFUError) -> Bool {
        do throws(DFUError) {
            guard case .imageState(let list)? = try await ask(.imageState, of: peer, context: &context) else { return false }
            return list.contains { $0.image == 0 && $0.slot == 1 && $0.active }
        } catch {
            guard case .remote(_, _, .smp(.management(.notSupported, _))) = error else { throw error }
            return false
        }
    }

    /// One SMP request on the connected `peer`: its answer, nil for a reset the device went through before its answer
    /// got out; an error the device answers is thrown as ``DFUError/remote(step:request:status:)``.
    private func ask(_ request: SMPRequest, of peer: DFUPeer, context: inout UpdateContext) async throws(DFUError) -> SMPResponse? {
        var machine = SMPManagementMachine(DFUMachineSetup(.manage, options: options, peer: peer, mode: .smpServer), request: request)
        _ = try await drive(&machine, context: &context)
        return machine.response
    }
}
