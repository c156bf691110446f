internal import CJSON

extension JSONValue {
    /// The value as compact JSON text written by json-c: no spaces, object keys in sorted order, `/` not escaped,
    /// characters beyond ASCII as UTF-8, integral doubles without a fraction (`2`, as `1.5` stays `1.5`).
    /// Throws for a non-finite double, which JSON cannot write.
    public func serialized() throws(JSONError) -> String {
        let object = try Self.object(self)
        defer { json_object_put(object) }
        var length = 0
        guard let text = json_object_to_json_string_length(object, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &length)
        else { throw .outOfMemory }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// A json-c object for `value` that the caller releases (nil for null, as json-c writes it).
    private static func object(_ value: JSONValue) throws(JSONError) -> OpaquePointer? {
        let object: OpaquePointer?
        switch value {
        case .null:
            return nil
        case .bool(let flag):
            object = json_object_new_boolean(flag ? 1 : 0)
        case .integer(let number):
            object = json_object_new_int64(number)
        case .unsignedInteger(let number):
            object = json_object_new_uint64(number)
        case .integerBeyond64Bits(let negative):
            object = negative ? json_object_new_int64(Int64.min) : json_object_new_uint64(UInt64.max)
        case .double(let number):
            guard number.isFinite else { throw .unwritableNumber(number) }
            // Swift's shortest text that reads back as the same double, not json-c's %.17g.
            var text = number.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            object = json_object_new_double_s(number, text)
        case .string(let text):
            var text = text
            object = text.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    chars.baseAddress.map { json_object_new_string_len($0, Int32(clamping: chars.count)) } ?? json_object_new_string("")
                }
            }
        case .array(let elements):
            guard let array = json_object_new_array_ext(Int32(clamping: elements.count)) else { throw .outOfMemory }
            for element in elements {
                try add(element, to: array) { json_object_array_add(array, $0) }
            }
            object = array
        case .object(let members):
            guard let dictionary = json_object_new_object() else { throw .outOfMemory }
            // json-c writes an object's members in the order they were added.
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                try add(member, to: dictionary) { json_object_object_add(dictionary, key, $0) }
            }
            object = dictionary
        }
        guard let object else { throw .outOfMemory }
        return object
    }

    /// Makes `value`'s object and hands it to `insert` (which takes it over, json-c's add functions returning 0);
    /// on any failure both it and `container` are released.
    private static func add(_ value: JSONValue, to container: OpaquePointer, insert: (OpaquePointer?) -> Int32)
        throws(JSONError)
    {
        let item: OpaquePointer?
        do {
            item = try object(value)
        } catch {
            json_object_put(container)
            throw error
        }
        guard insert(item) == 0 else {
            json_object_put(item)
            json_object_put(container)
            throw .outOfMemory
        }
    }
}
