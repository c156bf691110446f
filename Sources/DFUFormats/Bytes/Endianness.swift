/// The byte order of a multi-byte integer on the wire.
public enum Endianness: Sendable, Hashable {
    /// Most significant byte first (network order: MCUmgr's SMP header, for one).
    case big
    /// Least significant byte first (every field of Nordic's DFU protocols and init packets).
    case little
}
