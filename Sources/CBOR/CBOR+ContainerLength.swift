extension CBOR {
    /// How arrays and maps are written (RFC 8949 section 3.2.2): with their length up front, or
    /// open-ended, closed by a break byte (`0xff`).
    public enum ContainerLength: Sendable, Hashable {
        /// `0x80`–`0x9b` arrays and `0xa0`–`0xbb` maps, the count in the head.
        case definite
        /// `0x9f` arrays and `0xbf` maps, closed by `0xff`.
        case indefinite
    }
}
