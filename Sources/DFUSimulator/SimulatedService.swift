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

    /// A service that is not DFU (e.g. Heart Rate 180D), for application GATT tables.
    public static func other(_ uuid: String) -> SimulatedService {
        SimulatedService(uuid: uuid, characteristics: [SimulatedCharacteristic(uuid: uuid + "-0001", properties: [.read])])
    }
}
