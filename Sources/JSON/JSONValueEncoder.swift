/// Turns an `Encodable` value into a ``JSONValue``, as Swift's `Encoder` protocol describes it: keyed containers
/// become objects, unkeyed ones arrays, `nil` null; integers stay integers, `Float` and `Double` become doubles.
/// `encodeIfPresent` leaves a nil out. Write the result with ``JSONValue/serialized()``.
public struct JSONValueEncoder {
    /// An encoder.
    public init() {}

    /// The value's JSON; an `Encodable` that encodes nothing gives an empty object.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let node = Node()
        try value.encode(to: ValueEncoder(node: node, codingPath: []))
        return node.value
    }
}

/// What one encoder or container wrote: filled in as the value encodes itself.
private final class Node {
    enum Content {
        case unset
        case value(JSONValue)
        case object([String: Node])
        case array([Node])
    }

    var content = Content.unset

    var value: JSONValue {
        switch content {
        case .unset: .object([:])
        case .value(let value): value
        case .object(let members): .object(members.mapValues(\.value))
        case .array(let elements): .array(elements.map(\.value))
        }
    }

    /// A new member `key` of this object (made one if it is not yet).
    func member(_ key: String) -> Node {
        var members: [String: Node] = [:]
        if case .object(let existing) = content { members = existing }
        let node = Node()
        members[key] = node
        content = .object(members)
        return node
    }

    /// A new element at the end of this array (made one if it is not yet).
    func append() -> Node {
        var elements: [Node] = []
        if case .array(let existing) = content { elements = existing }
        let node = Node()
        elements.append(node)
        content = .array(elements)
        return node
    }

    func makeObject() { if case .object = content {} else { content = .object([:]) } }
    func makeArray() { if case .array = content {} else { content = .array([]) } }

    /// A primitive written into this node, or the node handed to a nested `Encodable`.
    func set<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        switch value {
        case let flag as Bool: content = .value(.bool(flag))
        case let text as String: content = .value(.string(text))
        case let number as Double: content = .value(.double(number))
        case let number as Float: content = .value(.double(Double(number)))
        case let number as Int: content = .value(.integer(Int64(number)))
        case let number as Int8: content = .value(.integer(Int64(number)))
        case let number as Int16: content = .value(.integer(Int64(number)))
        case let number as Int32: content = .value(.integer(Int64(number)))
        case let number as Int64: content = .value(.integer(number))
        case let number as UInt: content = .value(Self.unsigned(UInt64(number)))
        case let number as UInt8: content = .value(.integer(Int64(number)))
        case let number as UInt16: content = .value(.integer(Int64(number)))
        case let number as UInt32: content = .value(.integer(Int64(number)))
        case let number as UInt64: content = .value(Self.unsigned(number))
        default: try value.encode(to: ValueEncoder(node: self, codingPath: codingPath))
        }
    }

    private static func unsigned(_ number: UInt64) -> JSONValue {
        number <= UInt64(Int64.max) ? .integer(Int64(number)) : .unsignedInteger(number)
    }
}

private struct ValueEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(node: node, codingPath: codingPath) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    private func put<T: Encodable>(_ value: T, _ key: Key) throws {
        try node.member(key.stringValue).set(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let member = node.member(key.stringValue)
        member.makeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: member, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let member = node.member(key.stringValue)
        member.makeArray()
        return UnkeyedContainer(node: member, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { ValueEncoder(node: node.member("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int {
        guard case .array(let elements) = node.content else { return 0 }
        return elements.count
    }

    mutating func encodeNil() throws { node.append().content = .value(.null) }
    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

    private func put<T: Encodable>(_ value: T) throws {
        let index = count
        try node.append().set(value, codingPath: codingPath + [IndexKey(index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        let element = node.append()
        element.makeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: element, codingPath: codingPath + [IndexKey(index)]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        let element = node.append()
        element.makeArray()
        return UnkeyedContainer(node: element, codingPath: codingPath + [IndexKey(index)])
    }

    mutating func superEncoder() -> any Encoder {
        let index = count
        return ValueEncoder(node: node.append(), codingPath: codingPath + [IndexKey(index)])
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: String) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Double) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Int8) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Int16) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Int32) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: Int64) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) throws { try node.set(value, codingPath: codingPath) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.set(value, codingPath: codingPath) }
}

/// An array position in a coding path.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { intValue.map(String.init) ?? "" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
