import DFUCore
import DFUSimulator
import Synchronization

/// A hidden developer mode: `DFU_SIMULATE=1 dfu upload …` runs against simulated devices instead
/// of BlueZ, for demos and for checking the terminal output in a real pseudo-terminal.
///
/// Every address given with `--device` is a Secure DFU device (SDK 15–17 bootloader, buttonless
/// application without bonds, SoftDevice FWID 0xB7 that becomes 0x101 after a SoftDevice update);
/// names are not found. `DFU_SIMULATE_SPEED` (default 1) makes simulated air time pass that many
/// times faster than the wall clock; 0 runs without waiting.
public enum SimulatedDevices {
    /// The provider for the environment, or nil when `DFU_SIMULATE` is unset.
    public static func provider(environment: [String: String]) -> TransportProvider? {
        guard let mode = environment["DFU_SIMULATE"], !mode.isEmpty, mode != "0" else { return nil }
        let speed = environment["DFU_SIMULATE_SPEED"].flatMap(Double.init) ?? 1
        let devices = Mutex<[String: SimulatedTransport]>([:])
        return TransportProvider { _, device in
            let transport = devices.withLock { devices in
                if let existing = devices[device] { return existing }
                var peripherals: [SimulatedPeripheral] = []
                if let address = DFUDeviceAddress(device) { peripherals.append(Self.secureDevice(address)) }
                let created = SimulatedTransport(peripherals: peripherals)
                devices[device] = created
                return created
            }
            guard speed > 0, speed.isFinite else { return TransportSession(transport: transport, clock: transport.clock) }
            // Virtual time starts at zero for each device; pace it from now.
            let paced = PacedTransport(base: transport, speed: speed, start: ContinuousClock.now - (transport.clock.elapsed / speed))
            return TransportSession(transport: paced, clock: transport.clock)
        } scan: { _, _ in
            []
        }
    }

    /// The simulated device at `address`.
    static func secureDevice(_ address: DFUDeviceAddress) -> SimulatedPeripheral {
        let profile = SimulatedDeviceProfile(
            address: address, bootloader: .secure(SecureBootloaderConfiguration()),
            application: .buttonless(SimulatedButtonlessApplication(variant: .withoutBonds)))
        return SimulatedPeripheral(profile: profile, storage: SimulatedStorage(softdeviceID: 0xB7, softdeviceIDAfterUpdate: 0x101))
    }
}
