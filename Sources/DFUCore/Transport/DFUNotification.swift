import DFUFormats
/// A notification or indication received from the connected device.
public struct DFUNotification: Sendable, Hashable, CustomStringConvertible {
    /// Where it came from.
    public let endpoint: DFUEndpoint
    /// The value.
    public let bytes: [UInt8]

    /// Makes a notification value.
    public init(endpoint: DFUEndpoint, bytes: [UInt8]) {
        self.endpoint = endpoint
        self.bytes = bytes
    }

    /// e.g. "Secure DFU Control Point: 60 01 01".
    public var description: String { "\(endpoint): \(bytes.hexDescription)" }
}
