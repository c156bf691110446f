/// The six kinds of simulated device `dfu-sim --device` offers.
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

    /// Whether the device starts in its bootloader rather than in an application.
    public var startsInBootloader: Bool { self == .secure || self == .legacy }
}
