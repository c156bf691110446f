internal import CBOR

/// Typed reads of an SMP body's fields, throwing the response decoding errors.
extension CBOR {
    func optionalInt(_ key: String) throws(SMPResponse.DecodingError) -> Int? {
        guard let value = self[key] else { return nil }
        guard let int = value.intValue else { throw .wrongType(field: key, found: value.description) }
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
