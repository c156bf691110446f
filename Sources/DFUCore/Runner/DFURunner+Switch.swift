// Switching an application into its bootloader without sending anything (`dfu trigger`).

extension DFURunner {
    /// Connects to the device `device` selects and, when it runs an application with a buttonless
    /// service (or a Legacy application with the jump), switches it into its bootloader and finds
    /// the bootloader again. Returns where the bootloader now is and whether a switch happened;
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
                // Not "already in its bootloader": MCUboot has no Bluetooth, the application takes updates itself.
                throw .unsupportedDevice(reason: "\(peer.address) is an SMP (MCUmgr) server, with no nRF5 DFU bootloader "
                    + "to switch to ('dfu upload' sends it MCUboot images)")
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
