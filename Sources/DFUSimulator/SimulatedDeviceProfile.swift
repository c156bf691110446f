public import DFUCore

/// What a simulated device runs: its bootloader, its application, and its address rules.
public struct SimulatedDeviceProfile: Sendable {
    /// The bootloader.
    public enum Bootloader: Sendable {
        /// Secure DFU, SDK 15–17.
        case secure(SecureBootloaderConfiguration)
        /// Legacy DFU, SDK 4.3–11.
        case legacy(LegacyBootloaderConfiguration)
        /// MCUboot: no Bluetooth of its own; it boots the application, whose SMP server takes updates
        /// (use with ``Application/zephyr(_:)``).
        case mcuboot
    }

    /// The application (when one is installed).
    public enum Application: Sendable {
        /// A Secure buttonless application.
        case buttonless(SimulatedButtonlessApplication)
        /// A Legacy application with the buttonless jump.
        case legacy(SimulatedLegacyApplication)
        /// An application without any DFU service.
        case plain
        /// A Zephyr application with MCUmgr's SMP server, above MCUboot.
        case zephyr(SimulatedZephyrTarget)
    }

    /// The chip's address (the application's).
    public var address: DFUDeviceAddress
    /// The bootloader.
    public var bootloader: Bootloader
    /// The application.
    public var application: Application
    /// Whether the central is bonded with it.
    public var isBonded = false

    /// Makes a profile.
    public init(address: DFUDeviceAddress, bootloader: Bootloader, application: Application, isBonded: Bool = false) {
        self.address = address
        self.bootloader = bootloader
        self.application = application
        self.isBonded = isBonded
    }

    /// The bootloader's firmware and address.
    public func bootloaderFirmware(name: String?) -> (any SimulatedFirmware, DFUDeviceAddress) {
        switch bootloader {
        case .secure(let configuration):
            let address = configuration.requiresBonds ? address : address.bootloaderAddress
            return (SimulatedSecureBootloader(configuration: configuration, name: name), address)
        case .legacy(let configuration):
            return (SimulatedLegacyBootloader(configuration: configuration), address)
        case .mcuboot:
            return (applicationFirmware, address)
        }
    }

    /// The application's firmware.
    public var applicationFirmware: any SimulatedFirmware {
        switch application {
        case .buttonless(let app): app
        case .legacy(let app): app
        case .plain: SimulatedPlainApplication()
        case .zephyr(let target): target
        }
    }
}
