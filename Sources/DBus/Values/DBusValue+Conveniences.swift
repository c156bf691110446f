extension DBusValue {
    /// An `ay` array of bytes.
    public static func byteArray(_ bytes: [UInt8]) -> DBusValue {
        .bytes(bytes)
    }

    /// An `as` array of strings.
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", elements: strings.map(DBusValue.string))
    }

    /// An `a{sv}` dictionary, with keys sorted so that the encoding is stable.
    public static func stringVariantDictionary(_ dictionary: [String: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            entries: dictionary.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
            })
    }

    /// The value inside a variant, or the value itself when it is not a variant.
    public var unwrappingVariant: DBusValue {
        if case .variant(let inner) = self { return inner.unwrappingVariant }
        return self
    }

    /// The value inside one level of variant, or the value itself when it is not a variant.
    var unwrappingOneVariant: DBusValue {
        if case .variant(let inner) = self { return inner }
        return self
    }

    /// The string of an `s`, `o` or `g` value (looking through variants).
    public var stringValue: String? {
        switch unwrappingVariant {
        case .string(let string): string
        case .objectPath(let path): path.rawValue
        case .signature(let signature): signature.rawValue
        default: nil
        }
    }

    /// The path of an `o` value (looking through variants).
    public var objectPathValue: ObjectPath? {
        if case .objectPath(let path) = unwrappingVariant { return path }
        return nil
    }

    /// The boolean of a `b` value (looking through variants).
    public var boolValue: Bool? {
        if case .boolean(let flag) = unwrappingVariant { return flag }
        return nil
    }

    /// Any integer value (`y n q i u x t`, looking through variants) as an `Int64`, if it fits.
    public var integerValue: Int64? {
        switch unwrappingVariant {
        case .byte(let number): Int64(number)
        case .int16(let number): Int64(number)
        case .uint16(let number): Int64(number)
        case .int32(let number): Int64(number)
        case .uint32(let number): Int64(number)
        case .int64(let number): number
        case .uint64(let number): Int64(exactly: number)
        default: nil
        }
    }

    /// The bytes of an `ay` value (looking through variants).
    public var byteArrayValue: [UInt8]? {
        let value = unwrappingVariant
        if case .bytes(let bytes) = value { return bytes }
        guard case .array(_, let elements) = value else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard case .byte(let byte) = element else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// The elements of any array (looking through variants).
    public var arrayElements: [DBusValue]? {
        switch unwrappingVariant {
        case .array(_, let elements): elements
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        default: nil
        }
    }

    /// The strings of an `as` or `ao` array (looking through variants).
    public var stringArrayValue: [String]? {
        guard let elements = arrayElements else { return nil }
        var strings: [String] = []
        for element in elements {
            guard let string = element.stringValue else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// The entries of any dictionary (looking through variants).
    public var dictionaryEntries: [DBusDictionaryEntry]? {
        if case .dictionary(_, _, let entries) = unwrappingVariant { return entries }
        return nil
    }

    /// A dictionary with string or object-path keys as a Swift dictionary, values unchanged.
    ///
    /// For `a{sv}` the values are variants; use ``unwrappingVariant`` on them or read them
    /// with the accessors, which look through variants.
    public var stringKeyedDictionary: [String: DBusValue]? {
        guard let entries = dictionaryEntries else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            result[key] = entry.value
        }
        return result
    }

    /// The fields of a structure.
    public var structureFields: [DBusValue]? {
        if case .structure(let fields) = unwrappingVariant { return fields }
        return nil
    }

    /// The descriptor of an `h` value (looking through variants).
    public var fileDescriptorValue: OwnedFileDescriptor? {
        if case .unixFileDescriptor(let descriptor) = unwrappingVariant { return descriptor }
        return nil
    }
}
