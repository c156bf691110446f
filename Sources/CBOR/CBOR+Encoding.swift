internal import CCbor

extension CBOR {
    /// The value as CBOR bytes, built as libcbor items and written by `cbor_serialize_alloc`.
    /// Integers take the shortest of libcbor's widths; floats are written as doubles; maps keep
    /// their entry order; arrays and maps have their length up front unless `containers` says
    /// `.indefinite` (a start byte, the items, a break byte).
    public func encoded(limits: CBORLimits = .standard, containers: ContainerLength = .definite) throws(CBORError)
        -> [UInt8]
    {
        var items = 0
        let item = try build(depth: 0, items: &items, limits: limits, containers: containers)
        defer { cbor_intermediate_decref(item) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var capacity = 0
        let written = cbor_serialize_alloc(item, &buffer, &capacity)
        defer { ccbor_free_buffer(buffer) }
        guard written > 0, let buffer else { throw CBORError(.outOfMemory) }
        guard written <= limits.maxBytes else { throw CBORError(.tooLarge(bytes: written, limit: limits.maxBytes)) }
        return Array(UnsafeBufferPointer(start: buffer, count: written))
    }

    /// A new libcbor item (reference count 1) for this value; the caller releases it.
    private func build(depth: Int, items: inout Int, limits: CBORLimits, containers: ContainerLength) throws(CBORError)
        -> UnsafeMutablePointer<cbor_item_t>
    {
        guard depth <= limits.maxDepth else { throw CBORError(.tooDeep(limit: limits.maxDepth)) }
        items += 1
        guard items <= limits.maxItems else { throw CBORError(.tooManyItems(limit: limits.maxItems)) }
        let built: UnsafeMutablePointer<cbor_item_t>?
        switch self {
        case .unsigned(let n):
            built = switch n {
            case 0...UInt64(UInt8.max): cbor_build_uint8(UInt8(n))
            case 0...UInt64(UInt16.max): cbor_build_uint16(UInt16(n))
            case 0...UInt64(UInt32.max): cbor_build_uint32(UInt32(n))
            default: cbor_build_uint64(n)
            }
        case .negative(let n):
            built = switch n {
            case 0...UInt64(UInt8.max): cbor_build_negint8(UInt8(n))
            case 0...UInt64(UInt16.max): cbor_build_negint16(UInt16(n))
            case 0...UInt64(UInt32.max): cbor_build_negint32(UInt32(n))
            default: cbor_build_negint64(n)
            }
        case .bytes(let bytes):
            guard bytes.count <= limits.maxBytes else {
                throw CBORError(.tooLarge(bytes: bytes.count, limit: limits.maxBytes))
            }
            built = bytes.withUnsafeBufferPointer { cbor_build_bytestring($0.baseAddress, $0.count) }
        case .text(let text):
            let utf8 = Array(text.utf8)
            guard utf8.count <= limits.maxBytes else {
                throw CBORError(.tooLarge(bytes: utf8.count, limit: limits.maxBytes))
            }
            built = utf8.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { cbor_build_stringn($0.baseAddress, $0.count) }
            }
        case .array(let elements):
            let made = containers == .definite ? cbor_new_definite_array(elements.count) : cbor_new_indefinite_array()
            guard let array = made else { throw CBORError(.outOfMemory) }
            do throws(CBORError) {
                for element in elements {
                    let child = try element.build(depth: depth + 1, items: &items, limits: limits, containers: containers)
                    let pushed = cbor_array_push(array, child)  // the array takes its own reference
                    cbor_intermediate_decref(child)
                    guard pushed else { throw CBORError(.outOfMemory) }
                }
            } catch {
                cbor_intermediate_decref(array)
                throw error
            }
            built = array
        case .map(let entries):
            let made = containers == .definite ? cbor_new_definite_map(entries.count) : cbor_new_indefinite_map()
            guard let map = made else { throw CBORError(.outOfMemory) }
            do throws(CBORError) {
                for entry in entries {
                    let key = try entry.key.build(depth: depth + 1, items: &items, limits: limits, containers: containers)
                    defer { cbor_intermediate_decref(key) }
                    let value = try entry.value.build(depth: depth + 1, items: &items, limits: limits, containers: containers)
                    defer { cbor_intermediate_decref(value) }
                    // The map takes its own references to key and value.
                    guard cbor_map_add(map, cbor_pair(key: key, value: value)) else { throw CBORError(.outOfMemory) }
                }
            } catch {
                cbor_intermediate_decref(map)
                throw error
            }
            built = map
        case .bool(let value):
            built = cbor_build_bool(value)
        case .null:
            built = cbor_new_null()
        case .float(let value):
            built = cbor_build_float8(value)
        }
        guard let built else { throw CBORError(.outOfMemory) }
        return built
    }
}
