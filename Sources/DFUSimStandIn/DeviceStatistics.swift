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
    /// Of those, the calls that asked for an answer (the others were sent with `NO_REPLY_EXPECTED`).
    public var writeValueCommandsAnswered = 0
    /// StartNotify calls that started a subscription (notifications as PropertiesChanged signals).
    public var startNotifies = 0
    /// nRF5 devices: requests to give up the transfer the device received, a Legacy Reset (06) or a Secure Abort
    /// (0C), as a client sends them when it is interrupted.
    public var transfersAbandoned = 0

    /// For each Create data object (Secure DFU), the real milliseconds from that request until the
    /// first packet of the object: the client's wait (`--first-object-delay`, `--object-delay`) plus
    /// the response's round trip.
    public var dataObjectWaits: [Int] = []

    /// SMP devices only (nil for the others, and left out of the report): what the client did with the SMP
    /// server, reported as `smp_*` keys beside the others.
    public var smp: SMPStatistics?

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
        case writeValueCommandsAnswered = "write_value_commands_answered"
        case startNotifies = "start_notify"
        case transfersAbandoned = "transfers_abandoned"
        case dataObjectWaits = "data_object_waits_ms"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        connections = try container.decode(Int.self, forKey: .connections)
        objectsExecuted = try container.decode(Int.self, forKey: .objectsExecuted)
        crcFailures = try container.decode(Int.self, forKey: .crcFailures)
        droppedPackets = try container.decode(Int.self, forKey: .droppedPackets)
        modelledMilliseconds = try container.decode(Int.self, forKey: .modelledMilliseconds)
        acquireWrites = try container.decode(Int.self, forKey: .acquireWrites)
        acquireNotifies = try container.decode(Int.self, forKey: .acquireNotifies)
        writeValueCommands = try container.decode(Int.self, forKey: .writeValueCommands)
        writeValueCommandsAnswered = try container.decodeIfPresent(Int.self, forKey: .writeValueCommandsAnswered) ?? 0
        startNotifies = try container.decode(Int.self, forKey: .startNotifies)
        transfersAbandoned = try container.decode(Int.self, forKey: .transfersAbandoned)
        dataObjectWaits = try container.decode([Int].self, forKey: .dataObjectWaits)
        // The smp_* keys sit beside the others; present only for SMP devices.
        smp = try? SMPStatistics(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connections, forKey: .connections)
        try container.encode(objectsExecuted, forKey: .objectsExecuted)
        try container.encode(crcFailures, forKey: .crcFailures)
        try container.encode(droppedPackets, forKey: .droppedPackets)
        try container.encode(modelledMilliseconds, forKey: .modelledMilliseconds)
        try container.encode(acquireWrites, forKey: .acquireWrites)
        try container.encode(acquireNotifies, forKey: .acquireNotifies)
        try container.encode(writeValueCommands, forKey: .writeValueCommands)
        try container.encode(writeValueCommandsAnswered, forKey: .writeValueCommandsAnswered)
        try container.encode(startNotifies, forKey: .startNotifies)
        try container.encode(transfersAbandoned, forKey: .transfersAbandoned)
        try container.encode(dataObjectWaits, forKey: .dataObjectWaits)
        try smp?.encode(to: encoder)
    }
}
