/// What a protocol machine learnt about the device's flash, for the flash pacing writer's model.
public enum FlashPacingEvent: Sendable, Hashable, CustomStringConvertible {
    /// A data object was created: the bootloader starts erasing its page now.
    case objectCreated
    /// The bootloader said its flash queue is empty (SDK 15–17 answer a data Execute only then).
    case idle
    /// Packets were lost although the model said a buffer was free: the flash is slower than assumed.
    case slower

    /// e.g. "object created".
    public var description: String {
        switch self {
        case .objectCreated: "object created"
        case .idle: "idle"
        case .slower: "slower than assumed"
        }
    }
}
