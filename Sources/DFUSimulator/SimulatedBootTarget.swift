/// What a simulated device boots into after a reset.
public enum SimulatedBootTarget: Sendable, Hashable {
    /// Its bootloader, in DFU mode, advertising `name` (nil: the bootloader's default name).
    case bootloader(name: String?)
    /// Its application when one is installed and valid, else the bootloader.
    case application
}
