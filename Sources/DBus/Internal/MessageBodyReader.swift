internal import CDBus

/// Reads a libdbus message body into ``DBusValue``s with its read iterators.
///
/// Unix file descriptors are duplicated by libdbus when read and wrapped at once in an
/// ``OwnedFileDescriptor``, so a failure later in the body still closes them.
enum MessageBodyReader {
    /// Reads every argument of the message.
    static func read(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        return try readAll(&iterator)
    }

    private static func readAll(_ iterator: inout DBusMessageIter) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != TypeCode.invalid {
            values.append(try readOne(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func readOne(_ iterator: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case TypeCode.byte: return .byte(basic(&iterator, UInt8(0)))
        case TypeCode.boolean: return .boolean(basic(&iterator, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(basic(&iterator, Int16(0)))
        case TypeCode.uint16: return .uint16(basic(&iterator, UInt16(0)))
        case TypeCode.int32: return .int32(basic(&iterator, Int32(0)))
        case TypeCode.uint32: return .uint32(basic(&iterator, UInt32(0)))
        case TypeCode.int64: return .int64(basic(&iterator, Int64(0)))
        case TypeCode.uint64: return .uint64(basic(&iterator, UInt64(0)))
        case TypeCode.double: return .double(basic(&iterator, Double(0)))
        case TypeCode.string: return .string(string(&iterator))
        case TypeCode.objectPath: return .objectPath(ObjectPath(unchecked: string(&iterator)))
        case TypeCode.signature: return .signature(DBusSignature(unchecked: string(&iterator)))
        case TypeCode.unixFileDescriptor:
            let descriptor = basic(&iterator, Int32(-1))
            guard descriptor >= 0 else {
                throw DBusError.invalidArguments("The message refers to a file descriptor it does not carry")
            }
            return .unixFileDescriptor(OwnedFileDescriptor(taking: descriptor))
        case TypeCode.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .variant(try readOne(&inner))
        case TypeCode.structure:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .structure(try readAll(&inner))
        case TypeCode.array:
            return try readArray(&iterator)
        default:
            throw DBusError.invalidArguments("Unsupported D-Bus type code \(type)")
        }
    }

    private static func readArray(_ iterator: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &inner)
        let elementType = dbus_message_iter_get_element_type(&iterator)
        if elementType == TypeCode.byte {
            var base: UnsafeMutableRawPointer?
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &base) { pointer in
                dbus_message_iter_get_fixed_array(&inner, pointer, &count)
            }
            let bytes =
                base.map {
                    Array(UnsafeBufferPointer(start: $0.assumingMemoryBound(to: UInt8.self), count: Int(count)))
                } ?? []
            return .bytes(bytes)
        }
        // The array's signature, "a" and its element's, by its UTF-8 bytes (one byte per type code).
        let signature = Array(containerSignature(&iterator).utf8)
        guard signature.count >= 2 else {
            throw DBusError.invalidArguments("Malformed array signature \"\(String(decoding: signature, as: UTF8.self))\"")
        }
        guard elementType == TypeCode.dictionaryEntry else {
            let elementSignature = DBusSignature(unchecked: String(decoding: signature[1...], as: UTF8.self))
            return .array(elementSignature: elementSignature, elements: try readAll(&inner))
        }
        // "a{KV}": the key is one basic type code, the value is the rest.
        guard signature.count >= 5 else {
            throw DBusError.invalidArguments("Malformed dictionary signature \"\(String(decoding: signature, as: UTF8.self))\"")
        }
        let keySignature = DBusSignature(unchecked: String(decoding: signature[2...2], as: UTF8.self))
        let valueSignature = DBusSignature(unchecked: String(decoding: signature[3..<(signature.count - 1)], as: UTF8.self))
        var entries: [DBusDictionaryEntry] = []
        while dbus_message_iter_get_arg_type(&inner) == TypeCode.dictionaryEntry {
            var pair = DBusMessageIter()
            dbus_message_iter_recurse(&inner, &pair)
            let key = try readOne(&pair)
            guard dbus_message_iter_next(&pair) != 0 else {
                throw DBusError.invalidArguments("A dictionary entry has no value")
            }
            let value = try readOne(&pair)
            entries.append(DBusDictionaryEntry(key: key, value: value))
            dbus_message_iter_next(&inner)
        }
        return .dictionary(keySignature: keySignature, valueSignature: valueSignature, entries: entries)
    }

    private static func basic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func string(_ iterator: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iterator, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    /// The full signature of the container under the iterator (`dbus_message_iter_get_signature`).
    private static func containerSignature(_ iterator: inout DBusMessageIter) -> String {
        guard let pointer = dbus_message_iter_get_signature(&iterator) else { return "" }
        defer { dbus_free(pointer) }
        return String(cString: pointer)
    }
}
