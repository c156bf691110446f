internal import CJSON

extension JSONValue {
    /// Arrays and objects nested deeper than this are refused (json-c's default depth).
    public static let maxDepth: Int32 = 32

    /// Reads `bytes` as one JSON value with json-c's strict tokener, validating UTF-8; whitespace may follow the
    /// value, nothing else.
    ///
    /// json-c is stricter than a bare tokener here (no comments, no trailing commas, no leading zeros) but still
    /// takes two things RFC 8259 does not: object keys in single quotes and the words `NaN` and `Infinity`
    /// (read as a non-finite ``double(_:)``, which ``doubleValue`` gives as nil).
    public init(parsing bytes: [UInt8]) throws(JSONError) {
        guard bytes.count < Int(Int32.max) else { throw .tooLarge(bytes: bytes.count) }
        guard let tokener = json_tokener_new_ex(Self.maxDepth) else { throw .outOfMemory }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
        // The terminating NUL is passed too: json-c needs it to end a number at the top level.
        let terminated = bytes + [0]
        let object = terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { json_tokener_parse_ex(tokener, $0.baseAddress, Int32($0.count)) }
        }
        let end = json_tokener_get_parse_end(tokener)
        let status = json_tokener_get_error(tokener)
        guard status == json_tokener_success else {
            switch status {
            case json_tokener_error_depth: throw .tooDeep(limit: Int(Self.maxDepth))
            case json_tokener_error_parse_utf8_string: throw .invalidUTF8(offset: end)
            default: throw .invalid(offset: end)
            }
        }
        defer { json_object_put(object) }
        // A NUL inside the text ends json-c's reading early: what follows it is not whitespace.
        guard end >= bytes.count else { throw .invalid(offset: end) }
        self = Self(object)
    }

    /// The Swift value of a json-c object (NULL is JSON's null).
    private init(_ object: OpaquePointer?) {
        guard let object else {
            self = .null
            return
        }
        switch json_object_get_type(object) {
        case json_type_boolean:
            self = .bool(json_object_get_boolean(object) != 0)
        case json_type_int:
            // json-c keeps an integer as int64 or uint64 and saturates both: read both to tell which it is.
            let signed = json_object_get_int64(object)
            if signed == Int64.min {
                self = .integerBeyond64Bits(negative: true)
            } else if signed < Int64.max {
                self = .integer(signed)
            } else {
                let unsigned = json_object_get_uint64(object)
                self = unsigned == UInt64.max ? .integerBeyond64Bits(negative: false)
                    : unsigned == UInt64(Int64.max) ? .integer(Int64.max) : .unsignedInteger(unsigned)
            }
        case json_type_double:
            self = .double(json_object_get_double(object))
        case json_type_string:
            let count = Int(json_object_get_string_len(object))
            guard let start = json_object_get_string(object) else {
                self = .string("")
                return
            }
            self = .string(String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self))
        case json_type_array:
            let count = json_object_array_length(object)
            self = .array((0..<count).map { Self(json_object_array_get_idx(object, $0)) })
        case json_type_object:
            var members: [String: JSONValue] = [:]
            var member = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            while json_object_iter_equal(&member, &end) == 0 {
                if let name = json_object_iter_peek_name(&member) {
                    members[String(cString: name)] = Self(json_object_iter_peek_value(&member))
                }
                json_object_iter_next(&member)
            }
            self = .object(members)
        default:
            self = .null
        }
    }
}
