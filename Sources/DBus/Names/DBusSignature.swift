internal import CDBus
import Synchronization

/// A D-Bus type signature: zero or more complete types, such as `a{sv}` or `oa{sa{sv}}`.
///
/// Checked with libdbus's `dbus_signature_validate` when created from a string.
public struct DBusSignature: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The signature text.
    public let rawValue: String

    /// Validates `string` as a signature of zero or more complete types.
    public init(_ string: String) throws(DBusError) {
        guard !string.utf8.contains(0) else {
            throw DBusError(name: DBusError.Names.invalidSignature, message: "Invalid signature: it contains a NUL")
        }
        try LibDBus.check(DBusError(name: DBusError.Names.invalidSignature, message: "Invalid signature \"\(string)\""))
        {
            cError in string.withCString { dbus_signature_validate($0, cError) != 0 }
        }
        rawValue = string
    }

    /// Validates `rawValue`, or returns `nil` when it is not a valid signature.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a signature from a literal written in code.
    ///
    /// The literal is not validated here; an invalid one is refused with
    /// `org.freedesktop.DBus.Error.InvalidSignature` when a value using it is sent.
    public init(stringLiteral value: String) {
        rawValue = value
    }

    /// Wraps a string already known to be valid (built by this module, or read from libdbus).
    init(unchecked string: String) {
        rawValue = string
    }

    /// The signature text.
    public var description: String { rawValue }

    /// Whether this is exactly one complete type (`dbus_signature_validate_single`).
    public var isSingleCompleteType: Bool {
        Self.remembered(rawValue, single: true) { dbus_signature_validate_single($0, nil) != 0 }
    }

    /// Whether this is valid as a whole (`dbus_signature_validate`).
    public var isValid: Bool {
        Self.remembered(rawValue, single: false) { dbus_signature_validate($0, nil) != 0 }
    }

    /// Signatures libdbus already found valid, as a whole and as one complete type: every message a client sends
    /// checks the same few (`aya{sv}`, `a{sv}`, `v`), and comparing short strings (kept inline by Swift, compared
    /// by their bits) costs far less than libdbus's validation. At most ``ValidSignatures/limit`` of each are kept;
    /// a signature libdbus refuses is never kept.
    private static let known = Mutex(ValidSignatures())

    struct ValidSignatures {
        static let limit = 16
        var whole: [String] = []
        var single: [String] = []
    }

    /// `validate`'s answer for `text`, from `known` when it was found valid before.
    private static func remembered(_ text: String, single: Bool, validate: (UnsafePointer<CChar>) -> Bool) -> Bool {
        if known.withLock({ (single ? $0.single : $0.whole).contains(text) }) { return true }
        guard !text.utf8.contains(0), text.withCString(validate) else { return false }
        known.withLock { known in
            if single {
                if known.single.count < ValidSignatures.limit { known.single.append(text) }
            } else if known.whole.count < ValidSignatures.limit {
                known.whole.append(text)
            }
        }
        return true
    }

    /// Whether this is a single basic type, the kind allowed as a dictionary key.
    public var isBasicType: Bool {
        guard rawValue.utf8.count == 1, let code = rawValue.utf8.first else { return false }
        return "ybnqiuxtdsogh".utf8.contains(code)
    }
}
