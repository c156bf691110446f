/// One primary service of a simulated GATT database.
public struct SimulatedService: Sendable, Hashable {
    /// The UUID, upper case.
    public var uuid: String
    /// Its characteristics.
    public var characteristics: [SimulatedCharacteristic]

    /// Makes a service.
    public init(uuid: String, characteristics: [SimulatedCharacteristic]) {
        self.uuid = uuid.uppercased()
        self.characteristics = characteristics
    }

    /// A service that is not DFU (e.g. Heart Rate 180D), for application GATT tables: one readable
    /// characteristic whose UUID is the service's with its first group incremented (a valid UUID).
    public static func other(_ uuid: String) -> SimulatedService {
        SimulatedService(uuid: uuid, characteristics: [SimulatedCharacteristic(uuid: characteristicUUID(in: uuid), properties: [.read])])
    }

    /// `uuid` with its first 32-bit group plus one, e.g. `0000180D-…` → `0000180E-…`.
    static func characteristicUUID(in uuid: String) -> String {
        let upper = uuid.uppercased()
        guard upper.count == 36, let first = UInt32(upper.prefix(8), radix: 16) else { return upper }
        let next = String(first &+ 1, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - next.count) + next + upper.dropFirst(8)
    }
}
