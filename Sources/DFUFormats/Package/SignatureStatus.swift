/// What is known about an init packet's signature.
public enum SignatureStatus: Sendable, Hashable, CustomStringConvertible {
    /// The init packet carries no signature.
    case unsigned
    /// Signed, but no key was given to check it.
    case notChecked
    /// Signed, and the signature verifies with the given key.
    case valid
    /// Signed, and the signature does not verify with the given key.
    case invalid
    /// Signed in a way this tool cannot check (the reason says why).
    case unverifiable(reason: String)

    /// E.g. `valid`, `not checked (no key)`.
    public var description: String {
        switch self {
        case .unsigned: "unsigned"
        case .notChecked: "not checked (no key)"
        case .valid: "valid"
        case .invalid: "INVALID"
        case .unverifiable(let reason): "cannot be checked (\(reason))"
        }
    }
}

extension SignatureStatus {
    /// For JSON's `signature_ok`: true when verified, false when it failed or could not be
    /// checked, nil when no key was given or nothing is signed.
    public var isVerified: Bool? {
        switch self {
        case .valid: true
        case .invalid, .unverifiable: false
        case .unsigned, .notChecked: nil
        }
    }

    /// The status as one lowercase word for JSON, e.g. `not_checked`.
    public var jsonName: String {
        switch self {
        case .unsigned: "unsigned"
        case .notChecked: "not_checked"
        case .valid: "valid"
        case .invalid: "invalid"
        case .unverifiable: "unverifiable"
        }
    }
}
