/// A simulated nRF5 firmware as seen over GATT: its database, advertising and handlers.
///
/// Handlers are synchronous and time-stamped by the context, so the same firmware can be driven
/// by the in-memory transport in virtual time or exposed on D-Bus in real time.
public protocol SimulatedFirmware: Sendable {
    /// The primary services, in discovery order (GAP/GATT omitted).
    var services: [SimulatedService] { get }
    /// The advertised Complete Local Name.
    var advertisedName: String { get }
    /// The advertised service UUIDs.
    var advertisedServiceUUIDs: [String] { get }
    /// Whether it advertises at all (a device MCUboot found nothing to boot on does not).
    var isAdvertising: Bool { get }

    /// A write arrived; returns an ATT error code to reject it, nil to accept it.
    mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType,
                        context: inout SimulatedContext) -> SimulatedATTError?

    /// A read; returns the value or an ATT error code.
    mutating func read(_ characteristic: String, context: inout SimulatedContext) -> Result<[UInt8], SimulatedATTError>

    /// The link dropped.
    mutating func connectionDropped(context: inout SimulatedContext)

    /// The ATT error a CCCD write on `characteristic` gets (nil: subscribing is allowed).
    func subscriptionError(for characteristic: String, isBonded: Bool) -> SimulatedATTError?
}

extension SimulatedFirmware {
    /// It advertises.
    public var isAdvertising: Bool { true }

    /// Subscribing is allowed.
    public func subscriptionError(for characteristic: String, isBonded: Bool) -> SimulatedATTError? { nil }
}

/// How a simulated characteristic was written.
public enum SimulatedWriteType: Sendable, Hashable {
    /// ATT Write Request.
    case request
    /// ATT Write Command.
    case command
}

/// An ATT error code returned by a simulated handler.
public struct SimulatedATTError: Error, Sendable, Hashable {
    /// The code, e.g. 0xFD (CCCD improperly configured).
    public let code: UInt8
    /// Wraps a code.
    public init(code: UInt8) { self.code = code }
    /// 0x0A Attribute not found.
    public static let attributeNotFound = SimulatedATTError(code: 0x0A)
    /// 0x03 Write not permitted.
    public static let writeNotPermitted = SimulatedATTError(code: 0x03)
    /// 0xFD Client Characteristic Configuration Descriptor improperly configured.
    public static let cccdImproperlyConfigured = SimulatedATTError(code: 0xFD)
}
