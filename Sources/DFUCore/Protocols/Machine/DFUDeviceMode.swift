/// What a connected device runs, as far as DFU is concerned.
public enum DFUDeviceMode: Sendable, Hashable {
    /// A Secure DFU bootloader (SDK 12–17).
    case secureBootloader
    /// A Legacy DFU bootloader (SDK 4.3–11), with its DFU Version when it has the characteristic.
    case legacyBootloader(LegacyDFUVersion?)
    /// An application with a buttonless DFU service.
    case buttonless(ButtonlessVariant)
    /// A Legacy application that jumps into its bootloader on Start DFU.
    case legacyApplication
    /// An MCUmgr SMP server: a Zephyr (nRF Connect SDK) application that takes MCUboot images itself.
    case smpServer

    /// The machine the runner drives over a connection to a device in this mode: the one that sends the setup's
    /// part to a bootloader, or the one that switches an application into its bootloader.
    public func machine(_ setup: DFUMachineSetup) -> any DFUProtocolMachine {
        switch self {
        case .secureBootloader: SecureDFUStateMachine(setup)
        case .legacyBootloader: LegacyDFUStateMachine(setup)
        case .buttonless: ButtonlessStateMachine(setup)
        case .legacyApplication: LegacyJumpStateMachine(setup)
        case .smpServer: SMPUploadMachine(setup)
        }
    }

    /// Whether the device runs an application that must first be switched into its bootloader.
    public var isApplication: Bool {
        switch self {
        case .buttonless, .legacyApplication: true
        case .secureBootloader, .legacyBootloader, .smpServer: false
        }
    }
}
