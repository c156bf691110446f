/// What happened to one simulated device, for `--report`.
public struct DeviceStatistics: Sendable, Hashable, Codable {
    /// Links established.
    public var connections = 0
    /// Objects (Secure) or images (Legacy) the target executed or validated successfully.
    public var objectsExecuted = 0
    /// Checksums the target reported that did not match what the client sent (or Legacy CRC errors).
    public var crcFailures = 0
    /// Packet writes lost: injected drops plus writes the target's buffers could not take.
    public var droppedPackets = 0
    /// Modelled link time, in milliseconds.
    public var modelledMilliseconds = 0
    /// AcquireWrite calls granted (sockets handed out for writes without response).
    public var acquireWrites = 0
    /// AcquireNotify calls granted (sockets handed out for notifications).
    public var acquireNotifies = 0
    /// WriteValue calls with type=command (writes without response that did not use a socket).
    public var writeValueCommands = 0
    /// StartNotify calls that started a subscription (notifications as PropertiesChanged signals).
    public var startNotifies = 0
    /// nRF5 devices: requests to give up the transfer the device received, a Legacy Reset (06) or a Secure Abort
    /// (0C), as a client sends them when it is interrupted.
    public var transfersAbandoned = 0

    /// For each Create data object (Secure DFU), the real milliseconds from that request until the
    /// first packet of the object: the client's wait (`--first-object-delay`, `--object-delay`) plus
    /// the response's round trip.
    public var dataObjectWaits: [Int] = []

    /// SMP devices only (nil for the others, and left out of the report): request frames the SMP server received.
    public var smpRequests: Int?
    /// SMP: the most requests the client had waiting for an answer at once.
    public var smpMaximumInFlight: Int?
    /// SMP: upload requests for an offset the server had already received in the same upload.
    public var smpRetransmissions: Int?
    /// SMP: resets of the device (each runs MCUboot).
    public var smpResets: Int?

    /// All zero.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case connections
        case objectsExecuted = "objects_executed"
        case crcFailures = "crc_failures"
        case droppedPackets = "dropped_packets"
        case modelledMilliseconds = "modelled_ms"
        case acquireWrites = "acquire_write"
        case acquireNotifies = "acquire_notify"
        case writeValueCommands = "write_value_commands"
        case startNotifies = "start_notify"
        case transfersAbandoned = "transfers_abandoned"
        case dataObjectWaits = "data_object_waits_ms"
        case smpRequests = "smp_requests"
        case smpMaximumInFlight = "smp_max_in_flight"
        case smpRetransmissions = "smp_retransmissions"
        case smpResets = "smp_resets"
    }
}
