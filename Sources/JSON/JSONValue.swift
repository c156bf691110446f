/// One JSON value (RFC 8259) as a Swift value. Text is read and written by json-c
/// (``JSONValue/init(parsing:)``, ``JSONValue/serialized()``); nothing here reads or writes JSON's
/// characters by hand.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent, from −2^63 + 1 to 2^63 − 1.
    case integer(Int64)
    /// A number written without fraction or exponent, from 2^63 to 2^64 − 2.
    case unsignedInteger(UInt64)
    /// A number written without fraction or exponent beyond what 64 bits hold (json-c keeps no value for it: it
    /// saturates at −2^63 and 2^64 − 1, so those two read as beyond too); `negative` gives its sign.
    case integerBeyond64Bits(negative: Bool)
    /// A number written with a fraction or an exponent (written: a finite one).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; a key written twice keeps its last value, as json-c reads it. Written with sorted keys.
    case object([String: JSONValue])

    /// The member `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The integer when this is one that `T` holds: nil for any other value (a fraction, a string, an integer
    /// out of `T`'s range).
    public func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        switch self {
        case .integer(let value): T(exactly: value)
        case .unsignedInteger(let value): T(exactly: value)
        default: nil
        }
    }

    /// Whether this is a number, of any form.
    public var isNumber: Bool {
        switch self {
        case .integer, .unsignedInteger, .integerBeyond64Bits, .double: true
        default: false
        }
    }

    /// The number as a `Double` when this is a finite one (integers beyond 64 bits are not).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .unsignedInteger(let value): Double(value)
        case .double(let value): value.isFinite ? value : nil
        default: nil
        }
    }

    /// The string when this is one.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}
