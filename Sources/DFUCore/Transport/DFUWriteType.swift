/// How a characteristic is written.
public enum DFUWriteType: Sendable, Hashable {
    /// ATT Write Request: the call returns when the device acknowledged it.
    case withResponse
    /// ATT Write Command: no acknowledgement; the transport paces it to the link.
    case withoutResponse
}
