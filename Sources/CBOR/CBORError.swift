/// Why bytes are not one acceptable CBOR data item, or a value could not be encoded.
public struct CBORError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// No bytes at all.
        case empty
        /// The input ends inside a data item.
        case truncated
        /// The bytes break CBOR's rules (a reserved additional-information value, a stray break,
        /// a non-string chunk inside an indefinite string…), as libcbor found.
        case malformed
        /// Bytes follow the first complete data item.
        case trailingBytes(count: Int)
        /// More bytes than ``CBORLimits/maxBytes``.
        case tooLarge(bytes: Int, limit: Int)
        /// Nesting deeper than ``CBORLimits/maxDepth``.
        case tooDeep(limit: Int)
        /// More data items than ``CBORLimits/maxItems``.
        case tooManyItems(limit: Int)
        /// A valid CBOR item this wrapper does not represent (a tag, `undefined`, a simple value).
        case unsupported(String)
        /// A text string that is not valid UTF-8.
        case invalidUTF8
        /// A map with the same key twice.
        case duplicateKey(String)
        /// libcbor could not allocate memory.
        case outOfMemory
    }

    /// What went wrong.
    public let kind: Kind
    /// Where, in bytes from the start of the input, when known.
    public let offset: Int?

    /// An error.
    public init(_ kind: Kind, offset: Int? = nil) {
        self.kind = kind
        self.offset = offset
    }

    /// One line, e.g. "CBOR data ends inside an item (at byte 7)".
    public var description: String {
        let at = offset.map { " (at byte \($0))" } ?? ""
        switch kind {
        case .empty: return "CBOR data is empty"
        case .truncated: return "CBOR data ends inside an item" + at
        case .malformed: return "CBOR data is malformed" + at
        case .trailingBytes(let count): return "CBOR data has \(count) byte(s) after its item" + at
        case .tooLarge(let bytes, let limit): return "CBOR data is \(bytes) bytes, more than the \(limit) allowed"
        case .tooDeep(let limit): return "CBOR data nests deeper than \(limit) levels" + at
        case .tooManyItems(let limit): return "CBOR data has more than \(limit) items" + at
        case .unsupported(let what): return "CBOR data holds \(what), which is not supported" + at
        case .invalidUTF8: return "CBOR text string is not valid UTF-8"
        case .duplicateKey(let key): return "CBOR map has the key \(key) twice"
        case .outOfMemory: return "CBOR: out of memory"
        }
    }
}
