internal import CBOR

/// Typed reads of an SMP body's fields, throwing the response decoding errors.
extension CBOR {
    func optionalInt(_ key: String) throws(SMPResponse.DecodingError) -> Int? {
        guard let value = self[key] else { return nil }
        guard let int = value.intValue else {
            // An integer beyond 64 bits signed is out of every field's range, not of the wrong type.
            switch value {
            case .unsigned(let n): throw .outOfRange(field: key, value: String(n))
            case .negative(let n):
                // −1 − n, which for n = 2^64 − 1 is −2^64.
                throw .outOfRange(field: key, value: n == .max ? "-18446744073709551616" : "-" + String(n + 1))
            default: throw .wrongType(field: key, found: value.description)
            }
        }
        return int
    }

    /// The integer `range.field`, checked against `range`; nil when absent.
    func optionalInt(_ range: DeviceFieldRange) throws(SMPResponse.DecodingError) -> Int? {
        guard let int = try optionalInt(range.field) else { return nil }
        guard range.allowed.contains(int) else { throw .outOfRange(field: range.field, value: String(int)) }
        return int
    }

    /// The integer `range.field`, required and checked against `range`.
    func requiredInt(_ range: DeviceFieldRange) throws(SMPResponse.DecodingError) -> Int {
        guard let int = try optionalInt(range) else { throw .missingField(range.field) }
        return int
    }

    func optionalBytes(_ key: String) throws(SMPResponse.DecodingError) -> [UInt8]? {
        guard let value = self[key] else { return nil }
        guard let bytes = value.bytesValue else { throw .wrongType(field: key, found: value.description) }
        return bytes
    }

    func optionalText(_ key: String) throws(SMPResponse.DecodingError) -> String? {
        guard let value = self[key] else { return nil }
        guard let text = value.textValue else { throw .wrongType(field: key, found: value.description) }
        return text
    }

    func optionalBool(_ key: String) throws(SMPResponse.DecodingError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard let bool = value.boolValue else { throw .wrongType(field: key, found: value.description) }
        return bool
    }

    func requiredInt(_ key: String) throws(SMPResponse.DecodingError) -> Int {
        guard let int = try optionalInt(key) else { throw .missingField(key) }
        return int
    }

    func requiredArray(_ key: String) throws(SMPResponse.DecodingError) -> [CBOR] {
        guard let value = self[key] else { throw .missingField(key) }
        guard let array = value.arrayValue else { throw .wrongType(field: key, found: value.description) }
        return array
    }
}
