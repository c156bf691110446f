/// The kinds of simulated device `dfu-sim --device` offers: nRF5 bootloaders and applications, and nRF Connect
/// SDK devices (Zephyr's SMP server above MCUboot).
public enum SimulatedDeviceKind: String, Sendable, Hashable, CaseIterable {
    /// A Secure DFU bootloader (SDK 15–17) in DFU mode.
    case secure
    /// A Legacy DFU bootloader (SDK 4.3–11) in DFU mode.
    case legacy
    /// An application with the buttonless service without bonds (the bootloader comes up at address + 1).
    case buttonless
    /// An application with the buttonless service with bonds (the bootloader keeps the address).
    case buttonlessBonded = "buttonless-bonded"
    /// An application with the SDK 12 experimental buttonless service.
    case buttonlessExperimental = "buttonless-experimental"
    /// An application with the Legacy DFU service reporting DFU Version 0.1 (the jump keeps the address).
    case legacyApp = "legacy-app"
    /// An nRF52840 running Zephyr's SMP server above MCUboot, one image (``DFUSimulator/ZephyrTargetConfiguration``).
    case smp
    /// The same, but the SMP characteristic and its CCCD need an encrypted, paired link (Zephyr's
    /// `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN`, the nRF Connect SDK 3.x default).
    case smpAuth = "smp-auth"
    /// An nRF5340 running Zephyr's SMP server: image 0 the application core's, image 1 the network core's.
    case smpNRF5340 = "smp-nrf5340"
    /// An nRF54L application above MCUboot in firmware loader mode, with the nRF Connect SDK's loader ("FW loader", at
    /// the same address) in slot 1 (``DFUSimulator/FirmwareLoaderConfiguration``).
    case smpLoader = "smp-loader"
    /// The same with the Bare Metal option's loader ("nRF_BM_MCUmgr", at the address with bit 0 inverted).
    case smpLoaderBareMetal = "smp-loader-bm"

    /// Whether the device starts in its bootloader rather than in an application.
    public var startsInBootloader: Bool { self == .secure || self == .legacy }

    /// Whether the device speaks SMP (MCUmgr) rather than an nRF5 DFU protocol.
    public var isSMP: Bool { [.smp, .smpAuth, .smpNRF5340, .smpLoader, .smpLoaderBareMetal].contains(self) }

    /// Whether the device is above MCUboot in firmware loader mode.
    public var hasFirmwareLoader: Bool { self == .smpLoader || self == .smpLoaderBareMetal }
}
