/// Whether and how to rename the bootloader's advertising before a buttonless jump (opcode 0x02).
public enum DFUAlternativeName: Sendable, Hashable {
    /// Do not send opcode 0x02.
    case off
    /// A random `DfuNNNNN` name (the default).
    case random
    /// This name (1–20 bytes of UTF-8).
    case named(String)
}
