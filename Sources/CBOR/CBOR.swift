/// One CBOR data item (RFC 8949) as a Swift value: the subset the SMP protocol uses and a little
/// more. Encoding and decoding go through libcbor (``CBOR/encoded(limits:)``, ``CBOR/init(decoding:limits:)``);
/// nothing here reads or writes CBOR's bytes by hand.
///
/// Tags, `undefined` and simple values other than `false`, `true` and `null` are refused when
/// decoding (``CBORError/Kind/unsupported(_:)``): no SMP message carries them.
public enum CBOR: Sendable, Hashable, CustomStringConvertible {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − n (so `.negative(0)` is −1).
    case negative(UInt64)
    /// Major type 2: a byte string (indefinite-length strings arrive joined).
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBOR])
    /// Major type 5: a map, its entries in the order they are written or were read.
    case map([Entry])
    /// Major type 7, simple values 20 and 21.
    case bool(Bool)
    /// Major type 7, simple value 22.
    case null
    /// Major type 7: a half, single or double precision float (encoded as a double).
    case float(Double)

    /// One key/value pair of a map.
    public struct Entry: Sendable, Hashable {
        /// The key.
        public var key: CBOR
        /// The value.
        public var value: CBOR

        /// A pair.
        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// A map with text keys, in the order given.
    public static func map(_ pairs: KeyValuePairs<String, CBOR>) -> CBOR {
        .map(pairs.map { Entry(.text($0.key), $0.value) })
    }

    /// An integer in the smallest of major types 0 and 1 that holds it.
    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value of the text key `key` when this is a map (the first such entry).
    public subscript(key: String) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == .text(key) }?.value
    }

    /// The integer, when this is one and it fits in `Int`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -Int(n) - 1 : nil
        default: nil
        }
    }

    /// The unsigned integer, when this is one.
    public var unsignedValue: UInt64? {
        if case .unsigned(let n) = self { return n }
        return nil
    }

    /// The bytes, when this is a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    /// The text, when this is a text string.
    public var textValue: String? {
        if case .text(let t) = self { return t }
        return nil
    }

    /// The truth value, when this is a bool.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [CBOR]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries, when this is a map.
    public var mapValue: [Entry]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// CBOR's diagnostic notation (RFC 8949 §8), e.g. `{"off": 0, "data": h'0102'}`.
    public var description: String {
        switch self {
        case .unsigned(let n): "\(n)"
        case .negative(let n): n == UInt64.max ? "-18446744073709551616" : "-\(n + 1)"
        case .bytes(let b): "h'" + b.map { String($0, radix: 16).leftPadded(to: 2) }.joined() + "'"
        case .text(let t): "\"" + t.unicodeScalars.map(\.diagnosticEscaped).joined() + "\""
        case .array(let a): "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .map(let m): "{" + m.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        case .float(let d): "\(d)"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension Unicode.Scalar {
    /// The scalar inside a diagnostic-notation string: quotes, backslashes and controls escaped.
    fileprivate var diagnosticEscaped: String {
        switch self {
        case "\"": "\\\""
        case "\\": "\\\\"
        default:
            value < 0x20 || value == 0x7F || (0x80..<0xA0).contains(value)
                ? "\\u" + String(value, radix: 16).leftPadded(to: 4) : String(self)
        }
    }
}
