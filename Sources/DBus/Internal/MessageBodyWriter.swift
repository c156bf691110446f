internal import CDBus

/// Appends ``DBusValue``s to a libdbus message with its append iterators.
///
/// Every value is checked before libdbus sees it, because libdbus treats bad input
/// (a string with NUL, an element of the wrong type) as a programming error and aborts.
/// Containers are opened and closed in one scope; when appending inside fails, the
/// container is abandoned (`dbus_message_iter_abandon_container`) and the error rethrown.
enum MessageBodyWriter {
    /// Checks `values` and appends them to the end of the message body.
    static func append(_ values: [DBusValue], to message: MessageHandle) throws(DBusError) {
        let signature = DBusValue.signature(of: values)
        guard signature.isValid else {
            throw DBusError(
                name: DBusError.Names.invalidSignature,
                message: "The arguments have the invalid signature \"\(signature.rawValue)\"")
        }
        for value in values {
            try check(value)
        }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message.pointer, &iterator)
        for value in values {
            try append(value, to: &iterator)
        }
    }

    /// Verifies what libdbus would otherwise assert on.
    static func check(_ value: DBusValue) throws(DBusError) {
        switch value {
        case .string(let string):
            guard !string.utf8.contains(0) else {
                throw DBusError.invalidArguments("A D-Bus string cannot contain a NUL character")
            }
        case .signature(let signature):
            guard signature.isValid else {
                throw DBusError(
                    name: DBusError.Names.invalidSignature, message: "Invalid signature value \"\(signature)\"")
            }
        case .unixFileDescriptor(let descriptor):
            guard descriptor.rawValue != nil else {
                throw DBusError.invalidArguments("A file descriptor argument was already closed")
            }
        case .array(let elementSignature, let elements):
            if elementSignature.rawValue == "y" {
                // A byte array (a packet) is checked without a signature string per byte.
                for element in elements {
                    guard case .byte = element else {
                        throw DBusError.invalidArguments(
                            "An array of \"y\" holds a value of type \"\(element.signatureText)\"")
                    }
                }
                return
            }
            guard elementSignature.isSingleCompleteType else {
                throw DBusError.invalidArguments("Invalid array element signature \"\(elementSignature)\"")
            }
            for element in elements {
                guard element.signatureText == elementSignature.rawValue else {
                    throw DBusError.invalidArguments(
                        "An array of \"\(elementSignature)\" holds a value of type \"\(element.signatureText)\"")
                }
                try check(element)
            }
        case .dictionary(let keySignature, let valueSignature, let entries):
            guard keySignature.isBasicType, valueSignature.isSingleCompleteType else {
                throw DBusError.invalidArguments(
                    "Invalid dictionary signature \"a{\(keySignature)\(valueSignature)}\"")
            }
            for entry in entries {
                guard entry.key.signatureText == keySignature.rawValue,
                    entry.value.signatureText == valueSignature.rawValue
                else {
                    throw DBusError.invalidArguments(
                        "A dictionary of \"{\(keySignature)\(valueSignature)}\" holds an entry of type "
                            + "\"{\(entry.key.signatureText)\(entry.value.signatureText)}\"")
                }
                try check(entry.key)
                try check(entry.value)
            }
        case .structure(let fields):
            guard !fields.isEmpty else {
                throw DBusError.invalidArguments("A D-Bus structure needs at least one field")
            }
            for field in fields {
                try check(field)
            }
        case .variant(let inner):
            guard inner.signature.isValid else {
                throw DBusError(name: DBusError.Names.invalidSignature, message: "A variant holds an invalid type")
            }
            try check(inner)
        case .byte, .bytes, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .objectPath:
            break
        }
    }

    private static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(let number): try appendBasic(number, TypeCode.byte, to: &iterator)
        case .boolean(let flag): try appendBasic(dbus_bool_t(flag ? 1 : 0), TypeCode.boolean, to: &iterator)
        case .int16(let number): try appendBasic(number, TypeCode.int16, to: &iterator)
        case .uint16(let number): try appendBasic(number, TypeCode.uint16, to: &iterator)
        case .int32(let number): try appendBasic(number, TypeCode.int32, to: &iterator)
        case .uint32(let number): try appendBasic(number, TypeCode.uint32, to: &iterator)
        case .int64(let number): try appendBasic(number, TypeCode.int64, to: &iterator)
        case .uint64(let number): try appendBasic(number, TypeCode.uint64, to: &iterator)
        case .double(let number): try appendBasic(number, TypeCode.double, to: &iterator)
        case .string(let string): try appendString(string, TypeCode.string, to: &iterator)
        case .objectPath(let path): try appendString(path.rawValue, TypeCode.objectPath, to: &iterator)
        case .signature(let signature): try appendString(signature.rawValue, TypeCode.signature, to: &iterator)
        case .unixFileDescriptor(let descriptor):
            guard let raw = descriptor.rawValue else {
                throw DBusError.invalidArguments("A file descriptor argument was already closed")
            }
            // libdbus duplicates the descriptor; the caller keeps its own.
            try appendBasic(raw, TypeCode.unixFileDescriptor, to: &iterator)
        case .bytes(let bytes):
            try withContainer(TypeCode.array, signature: "y", in: &iterator) { (inner) throws(DBusError) in
                try appendBytes(bytes, to: &inner)
            }
        case .array(let elementSignature, let elements):
            try withContainer(TypeCode.array, signature: elementSignature.rawValue, in: &iterator) {
                (inner) throws(DBusError) in
                if elementSignature.rawValue == "y" {
                    try appendBytes(try byteValues(elements), to: &inner)
                } else {
                    for element in elements {
                        try append(element, to: &inner)
                    }
                }
            }
        case .dictionary(let keySignature, let valueSignature, let entries):
            let entrySignature = "{" + keySignature.rawValue + valueSignature.rawValue + "}"
            try withContainer(TypeCode.array, signature: entrySignature, in: &iterator) { (inner) throws(DBusError) in
                for entry in entries {
                    try withContainer(TypeCode.dictionaryEntry, signature: nil, in: &inner) {
                        (pair) throws(DBusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            try withContainer(TypeCode.structure, signature: nil, in: &iterator) { (inner) throws(DBusError) in
                for field in fields {
                    try append(field, to: &inner)
                }
            }
        case .variant(let inner):
            try withContainer(TypeCode.variant, signature: inner.signatureText, in: &iterator) {
                (contents) throws(DBusError) in
                try append(inner, to: &contents)
            }
        }
    }

    /// Opens a container, runs `body` on its iterator, then closes it, or abandons it if `body` throws.
    private static func withContainer(
        _ type: Int32,
        signature: String?,
        in iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var inner = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &inner) }
        } else {
            opened = dbus_message_iter_open_container(&iterator, type, nil, &inner)
        }
        guard opened != 0 else {
            throw DBusError.noMemory("Out of memory opening a D-Bus container")
        }
        do {
            try body(&inner)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &inner)
            throw error
        }
        guard dbus_message_iter_close_container(&iterator, &inner) != 0 else {
            throw DBusError.noMemory("Out of memory closing a D-Bus container")
        }
    }

    private static func appendBasic<T: BitwiseCopyable>(_ value: T, _ type: Int32, to iterator: inout DBusMessageIter)
        throws(DBusError)
    {
        var copy = value
        guard dbus_message_iter_append_basic(&iterator, type, &copy) != 0 else {
            throw DBusError.noMemory("Out of memory appending a D-Bus value")
        }
    }

    private static func appendString(_ string: String, _ type: Int32, to iterator: inout DBusMessageIter)
        throws(DBusError)
    {
        let appended = string.withCString { characters in
            var pointer: UnsafePointer<CChar>? = characters
            return dbus_message_iter_append_basic(&iterator, type, &pointer)
        }
        guard appended != 0 else {
            throw DBusError.noMemory("Out of memory appending a D-Bus string")
        }
    }

    /// The bytes of an `ay` given as ``DBusValue/byte(_:)`` values.
    private static func byteValues(_ elements: [DBusValue]) throws(DBusError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard case .byte(let byte) = element else {
                throw DBusError.invalidArguments("An array of \"y\" holds a value of another type")
            }
            bytes.append(byte)
        }
        return bytes
    }

    /// Appends an `ay` payload in one step (`dbus_message_iter_append_fixed_array`).
    private static func appendBytes(_ bytes: [UInt8], to iterator: inout DBusMessageIter) throws(DBusError) {
        let appended = bytes.withUnsafeBufferPointer { buffer in
            var base = buffer.baseAddress
            return dbus_message_iter_append_fixed_array(&iterator, TypeCode.byte, &base, Int32(buffer.count))
        }
        guard appended != 0 else {
            throw DBusError.noMemory("Out of memory appending a D-Bus byte array")
        }
    }
}
