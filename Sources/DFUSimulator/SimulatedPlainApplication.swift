/// An application without any DFU service: what a device runs after an update when it has no buttonless support.
public struct SimulatedPlainApplication: SimulatedFirmware {
    /// The advertised name.
    public var advertisedName = "Nordic_Plain_App"
    /// Its services.
    public var services: [SimulatedService] = [.other("0000180F-0000-1000-8000-00805F9B34FB")]

    /// A plain application.
    public init() {}

    /// Its own services.
    public var advertisedServiceUUIDs: [String] { services.map(\.uuid) }

    /// Nothing is writable.
    public mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType,
                               context: inout SimulatedContext) -> SimulatedATTError? { .writeNotPermitted }

    /// Nothing is readable.
    public mutating func read(_ characteristic: String, context: inout SimulatedContext) -> Result<[UInt8], SimulatedATTError> {
        .failure(.attributeNotFound)
    }

    /// Nothing to do.
    public mutating func connectionDropped(context: inout SimulatedContext) {}
}
