import DFUFormats
/// A failure reported by a transport; the runner wraps it in ``DFUError`` with the step.
public enum DFUTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link is down (or dropped during the call).
    case disconnected
    /// Nothing arrived within the given time.
    case timedOut
    /// No device matched the selector within the scan timeout.
    case deviceNotFound
    /// The endpoint is not present on the connected device.
    case endpointMissing(DFUEndpoint)
    /// The device answered a write/read with an ATT error (e.g. 0xFD: CCCD improperly configured).
    case attError(UInt8)
    /// Bluetooth on this host became unavailable (the Bluetooth service left the bus, or the adapter
    /// was removed) and did not come back, in the transport's words. Not the device's doing.
    case hostUnavailable(String)
    /// The device needs an encrypted (paired) link and pairing with it failed: wrong or missing passkey,
    /// the device refused, or it timed out; the sentence names the device, the cause and what to try.
    case pairingFailed(String)
    /// The user stopped the run (Ctrl-C, SIGTERM): the transport has closed the link and takes no more
    /// calls. The runner stops at once, without reconnecting.
    case interrupted
    /// Anything else, in the transport's words.
    case failed(String)

    /// A phrase, e.g. "ATT error 0xfd (notifications not enabled — the GATT cache may be stale)".
    public var description: String {
        switch self {
        case .disconnected: "the device disconnected"
        case .timedOut: "the operation timed out"
        case .deviceNotFound: "no matching device was found"
        case .interrupted: "the run was interrupted"
        case .endpointMissing(let endpoint): "the device has no \(endpoint) characteristic"
        case .attError(0xFD):
            "ATT error 0xfd (notifications not enabled; the GATT cache may be stale, remove the device and retry)"
        case .attError(let code): "ATT error 0x" + [code].hexDescription
        case .hostUnavailable(let message), .pairingFailed(let message), .failed(let message): message
        }
    }
}
