/// What a simulated firmware sees and changes while handling one event.
public struct SimulatedContext: Sendable {
    /// When the event happens (virtual time since the start).
    public let now: Duration
    /// The characteristics (UUIDs) whose CCCD the connected client enabled.
    public let subscribed: Set<String>
    /// Whether the link is bonded.
    public let isBonded: Bool
    /// How long the device's flash takes (from the link model).
    public let flash: FlashTimings
    /// The longest notification the link carries (ATT MTU − 3).
    public var notificationLength = 244
    /// When the device's host learns that a notification it queues at the given time was received: the
    /// controller's Number of Completed Packets, which follows the central's next packet (its acknowledgement bit)
    /// in the connection event after the one that carried the notification. At once where the driver cannot know
    /// it (a peripheral on a real bluetoothd).
    public var notificationAcknowledged: @Sendable (Duration) -> Duration = { $0 }
    /// The device's flash: what is installed.
    public var storage: SimulatedStorage
    /// What the firmware answers with (appended by the handler).
    public var effects: [SimulatedEffect] = []
    /// Protocol invariants the client broke (appended by the handler).
    public var violations: [String] = []

    /// Makes a context.
    public init(now: Duration, subscribed: Set<String>, isBonded: Bool, storage: SimulatedStorage,
                flash: FlashTimings = FlashTimings()) {
        self.now = now
        self.flash = flash
        self.subscribed = subscribed
        self.isBonded = isBonded
        self.storage = storage
    }

    /// Queues a notification.
    public mutating func notify(_ characteristic: String, _ bytes: [UInt8], after delay: Duration = .zero) {
        effects.append(.notify(characteristic: characteristic.uppercased(), bytes: bytes, after: delay))
    }
}
