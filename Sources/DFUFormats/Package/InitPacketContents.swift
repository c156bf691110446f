/// An init packet as decoded for one part.
public enum InitPacketContents: Sendable, Hashable {
    /// The part has no init packet (only possible in Legacy packages).
    case none
    /// A Secure (protobuf) init packet.
    case secure(SecureInitPacket)
    /// A Legacy (CRC or extended) init packet.
    case legacy(LegacyInitPacket)
}
