/// One characteristic of a simulated GATT database.
public struct SimulatedCharacteristic: Sendable, Hashable {
    /// What a characteristic allows.
    public struct Properties: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: UInt8
        /// Wraps bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Read.
        public static let read = Properties(rawValue: 0x02)
        /// Write without response.
        public static let writeWithoutResponse = Properties(rawValue: 0x04)
        /// Write with response.
        public static let write = Properties(rawValue: 0x08)
        /// Notify.
        public static let notify = Properties(rawValue: 0x10)
        /// Indicate.
        public static let indicate = Properties(rawValue: 0x20)
    }

    /// The UUID, upper case.
    public var uuid: String
    /// Its properties.
    public var properties: Properties
    /// Whether its value attribute may be read (its read permission, which the peer's stack checks:
    /// without it a read gets ATT error 0x02). Usually what the `read` property says; Nordic's
    /// buttonless characteristic is readable without announcing `read`.
    public var readable: Bool

    /// Makes a characteristic; `readable` defaults to the `read` property.
    public init(uuid: String, properties: Properties, readable: Bool? = nil) {
        self.uuid = uuid.uppercased()
        self.properties = properties
        self.readable = readable ?? properties.contains(.read)
    }
}
