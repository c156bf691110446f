/// A value of any D-Bus type, as sent or received in a message body.
///
/// Containers carry the signatures of what they hold so that empty arrays and dictionaries
/// still marshal with the right type. Build `a{sv}` with ``stringVariantDictionary(_:)``
/// and byte arrays with ``byteArray(_:)``.
///
/// A byte array (`ay`, a packet) is one ``bytes(_:)`` value holding its bytes, as read and
/// written in one step (`dbus_message_iter_get_fixed_array`, `…_append_fixed_array`): no value
/// per byte. An ``array(elementSignature:elements:)`` of ``byte(_:)`` values is also sent as `ay`,
/// but messages read give ``bytes(_:)``.
public enum DBusValue: Sendable, Hashable {
    /// `y`: an unsigned byte.
    case byte(UInt8)
    /// `b`: a boolean.
    case boolean(Bool)
    /// `n`: a signed 16-bit integer.
    case int16(Int16)
    /// `q`: an unsigned 16-bit integer.
    case uint16(UInt16)
    /// `i`: a signed 32-bit integer.
    case int32(Int32)
    /// `u`: an unsigned 32-bit integer.
    case uint32(UInt32)
    /// `x`: a signed 64-bit integer.
    case int64(Int64)
    /// `t`: an unsigned 64-bit integer.
    case uint64(UInt64)
    /// `d`: an IEEE 754 double.
    case double(Double)
    /// `s`: a UTF-8 string without NUL characters.
    case string(String)
    /// `o`: an object path.
    case objectPath(ObjectPath)
    /// `g`: a type signature.
    case signature(DBusSignature)
    /// `h`: a Unix file descriptor, owned (see ``OwnedFileDescriptor``).
    case unixFileDescriptor(OwnedFileDescriptor)
    /// `ay`: an array of bytes.
    case bytes([UInt8])
    /// `aT`: an array whose elements all have the signature `elementSignature`.
    case array(elementSignature: DBusSignature, elements: [DBusValue])
    /// `a{KV}`: a dictionary; keys have the basic type `keySignature`, values `valueSignature`.
    indirect case dictionary(keySignature: DBusSignature, valueSignature: DBusSignature, entries: [DBusDictionaryEntry])
    /// `(…)`: a structure of one or more fields.
    case structure([DBusValue])
    /// `v`: a variant holding one value of any type.
    indirect case variant(DBusValue)

    /// The signature of this value, a single complete type.
    public var signature: DBusSignature {
        DBusSignature(unchecked: signatureText)
    }

    var signatureText: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFileDescriptor: "h"
        case .bytes: "ay"
        case .array(let element, _): "a" + element.rawValue
        case .dictionary(let key, let value, _): "a{" + key.rawValue + value.rawValue + "}"
        case .structure(let fields): "(" + fields.map(\.signatureText).joined() + ")"
        case .variant: "v"
        }
    }

    /// The signature of a list of values, as in a message body.
    public static func signature(of values: [DBusValue]) -> DBusSignature {
        DBusSignature(unchecked: values.map(\.signatureText).joined())
    }
}
