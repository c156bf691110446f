/// Bounds on what ``CBOR/init(decoding:limits:)`` accepts and ``CBOR/encoded(limits:)`` writes,
/// so that hostile bytes cannot exhaust the stack or memory.
public struct CBORLimits: Sendable, Hashable {
    /// Most bytes of input (or output).
    public var maxBytes: Int
    /// Deepest nesting of arrays, maps (and, when decoding, indefinite strings and tags); a
    /// lone scalar has depth 0, `[1]` depth 1.
    public var maxDepth: Int
    /// Most data items in total (every scalar, container and string chunk counts one).
    public var maxItems: Int

    /// Limits sized for SMP: a frame's body is at most 65 535 bytes (its length field is 16 bits).
    public static let standard = CBORLimits(maxBytes: 65_535, maxDepth: 16, maxItems: 4_096)

    /// Any limits.
    public init(maxBytes: Int, maxDepth: Int, maxItems: Int) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxItems = maxItems
    }
}
