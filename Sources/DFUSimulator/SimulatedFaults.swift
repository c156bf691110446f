/// Link-level faults the in-memory transport injects; each is selectable on its own.
public struct SimulatedFaults: Sendable, Hashable {
    /// A control point request that triggers a disconnect.
    public struct RequestTrigger: Sendable, Hashable {
        /// The request's first byte (opcode).
        public var opCode: UInt8
        /// Which occurrence (1 = the first such request).
        public var occurrence: Int
        /// Drop the link before the device sees the request (else after it handled it, before the answer).
        public var beforeDelivery: Bool

        /// Makes a trigger.
        public init(opCode: UInt8, occurrence: Int = 1, beforeDelivery: Bool = false) {
            self.opCode = opCode
            self.occurrence = occurrence
            self.beforeDelivery = beforeDelivery
        }
    }

    /// Drop the link once, right after this many packet bytes reached the device.
    public var disconnectAfterPacketBytes: Int?
    /// Drop the link once at this control point request.
    public var disconnectAtRequest: RequestTrigger?
    /// Packet writes (1-based, counted over the whole session) lost on the air.
    public var droppedPackets: Set<Int> = []
    /// Packet writes (1-based) delivered with their first byte inverted.
    public var corruptedPackets: Set<Int> = []
    /// Notifications (1-based, counted over the whole session) lost on the air.
    public var droppedNotifications: Set<Int> = []
    /// Notifications (1-based) that reach the client this much later (and every one after them with them,
    /// as notifications on one link stay in order).
    public var lateNotifications: [Int: Duration] = [:]
    /// Extra delay before every notification.
    public var responseDelay: Duration = .zero
    /// This many connection attempts fail (after the device was found) before one succeeds.
    public var failedConnections = 0
    /// The host keeps the GATT database it saw at an address: after a same-address jump it reports
    /// the application's services until told to discard its cache.
    public var staleServicesAfterJump = false

    /// No faults.
    public init() {}
}
