/// The three ways a Secure DFU application can be switched into its bootloader without a button.
public enum ButtonlessVariant: String, Sendable, Hashable, CaseIterable {
    /// 8EC90003 (SDK 13+): indications; the bootloader comes back at address + 1.
    case withoutBonds
    /// 8EC90004 (SDK 14+): indications, needs a bonded link; the bootloader keeps the address.
    case withBonds
    /// 8E400001 (SDK 12 only): notifications; opt-in; the bootloader comes back at address + 1.
    case experimental

    /// The endpoint the variant is written through.
    public var endpoint: DFUEndpoint {
        switch self {
        case .withoutBonds: .buttonlessWithoutBonds
        case .withBonds: .buttonlessWithBonds
        case .experimental: .buttonlessExperimental
        }
    }

    /// Whether the bootloader keeps the application's address.
    public var keepsAddress: Bool { self == .withBonds }

    /// Whether the variant understands "set advertising name" (opcode 0x02).
    public var supportsAdvertisingName: Bool { self == .withoutBonds }
}
