// Switching an application into its bootloader without sending anything (`dfu trigger`).

extension DFURunner {
    /// Connects to the device `device` selects and, when it runs an application with a buttonless
    /// service (or a Legacy application with the jump), or an SMP server above MCUboot in firmware loader mode,
    /// switches it into its bootloader (or firmware loader) and finds it again. Returns where the bootloader now is and whether a switch happened;
    /// a device already in its bootloader is returned as found. The link is closed either way.
    public func switchToBootloader(device: DFUDeviceSelector) async throws(DFUError) -> (bootloader: DFUPeer, switched: Bool) {
        do throws(DFUError) {
            var context = UpdateContext(start: clock.now, totalParts: 1, names: DFUAlternativeNameGenerator(seed: options.nameSeed))
            let selector = withBootloaderFallback(device)
            let peer = try await connect(DFUConnectParameters(
                selector: selector, scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout,
                uuids: options.uuids), step: .connecting)
            let mode = try await detectMode(peer, selectedBy: selector)
            if mode == .smpServer {
                // MCUboot has no Bluetooth of its own: only a firmware loader mode device has something to switch to.
                let (loader, switched) = try await switchToFirmwareLoader(from: peer, context: &context)
                await transport.disconnect()
                return (loader, switched)
            }
            guard mode.isApplication else {
                await transport.disconnect()
                return (peer, false)
            }
            report(.enablingDFUMode, part: 1, context: context, bytes: 0, total: 0)
            let (found, _) = try await enterBootloader(from: peer, mode: mode, context: &context)
            await transport.disconnect()
            return (found, true)
        } catch {
            await transport.disconnect()
            throw error
        }
    }
}
