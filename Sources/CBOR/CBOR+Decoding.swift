internal import CCbor

extension CBOR {
    /// Decodes exactly one data item from `bytes` with libcbor.
    ///
    /// First libcbor's streaming decoder (`cbor_stream_decode`) walks the item's headers, one at a
    /// time, without building anything, so that nesting, item count and truncation are checked
    /// before `cbor_load` builds the item (libcbor builds and frees nested items recursively, so
    /// unbounded nesting would exhaust the stack). Then the built item is turned into a `CBOR` value.
    public init(decoding bytes: [UInt8], limits: CBORLimits = .standard) throws(CBORError) {
        guard !bytes.isEmpty else { throw CBORError(.empty, offset: 0) }
        guard bytes.count <= limits.maxBytes else {
            throw CBORError(.tooLarge(bytes: bytes.count, limit: limits.maxBytes))
        }
        let result: Result<CBOR, CBORError> = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return .failure(CBORError(.empty, offset: 0)) }
            do throws(CBORError) {
                let length = try CBORStructureScan.itemLength(base, count: buffer.count, limits: limits)
                if length < buffer.count {
                    return .failure(CBORError(.trailingBytes(count: buffer.count - length), offset: length))
                }
                var load = cbor_load_result()
                guard let item = cbor_load(base, length, &load) else {
                    return .failure(CBORError(Self.kind(of: load.error.code), offset: load.error.position))
                }
                defer { cbor_intermediate_decref(item) }
                return .success(try CBOR(item: item, depth: 0, limits: limits))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    private static func kind(of code: cbor_error_code) -> CBORError.Kind {
        switch code {
        case CBOR_ERR_NOTENOUGHDATA: .truncated
        case CBOR_ERR_NODATA: .empty
        case CBOR_ERR_MEMERROR: .outOfMemory
        default: .malformed
        }
    }

    /// The value of one item libcbor built (its structure already bounded by the scan).
    private init(item: UnsafeMutablePointer<cbor_item_t>, depth: Int, limits: CBORLimits) throws(CBORError) {
        guard depth <= limits.maxDepth else { throw CBORError(.tooDeep(limit: limits.maxDepth)) }
        switch cbor_typeof(item) {
        case CBOR_TYPE_UINT:
            self = .unsigned(cbor_get_int(item))
        case CBOR_TYPE_NEGINT:
            self = .negative(cbor_get_int(item))
        case CBOR_TYPE_BYTESTRING:
            self = .bytes(Self.stringBytes(item, definite: cbor_bytestring_is_definite(item),
                                           handle: cbor_bytestring_handle, length: cbor_bytestring_length,
                                           chunks: cbor_bytestring_chunks_handle, chunkCount: cbor_bytestring_chunk_count))
        case CBOR_TYPE_STRING:
            let utf8 = Self.stringBytes(item, definite: cbor_string_is_definite(item),
                                        handle: cbor_string_handle, length: cbor_string_length,
                                        chunks: cbor_string_chunks_handle, chunkCount: cbor_string_chunk_count)
            guard let text = String(validating: utf8, as: UTF8.self) else { throw CBORError(.invalidUTF8) }
            self = .text(text)
        case CBOR_TYPE_ARRAY:
            var elements: [CBOR] = []
            let count = cbor_array_size(item)
            if count > 0, let handle = cbor_array_handle(item) {
                elements.reserveCapacity(count)
                for index in 0..<count {
                    guard let element = handle[index] else { throw CBORError(.malformed) }
                    elements.append(try CBOR(item: element, depth: depth + 1, limits: limits))
                }
            }
            self = .array(elements)
        case CBOR_TYPE_MAP:
            var entries: [Entry] = []
            var keys: Set<CBOR> = []
            let count = cbor_map_size(item)
            if count > 0, let handle = cbor_map_handle(item) {
                entries.reserveCapacity(count)
                for index in 0..<count {
                    guard let keyItem = handle[index].key, let valueItem = handle[index].value else {
                        throw CBORError(.malformed)
                    }
                    let key = try CBOR(item: keyItem, depth: depth + 1, limits: limits)
                    guard keys.insert(key).inserted else { throw CBORError(.duplicateKey(key.description)) }
                    entries.append(Entry(key, try CBOR(item: valueItem, depth: depth + 1, limits: limits)))
                }
            }
            self = .map(entries)
        case CBOR_TYPE_TAG:
            throw CBORError(.unsupported("a tag (\(cbor_tag_value(item)))"))
        default:
            if cbor_float_get_width(item) != CBOR_FLOAT_0 {
                self = .float(cbor_float_get_float(item))
                return
            }
            switch cbor_ctrl_value(item) {
            case UInt8(CBOR_CTRL_FALSE.rawValue): self = .bool(false)
            case UInt8(CBOR_CTRL_TRUE.rawValue): self = .bool(true)
            case UInt8(CBOR_CTRL_NULL.rawValue): self = .null
            case UInt8(CBOR_CTRL_UNDEF.rawValue): throw CBORError(.unsupported("undefined"))
            case let value: throw CBORError(.unsupported("the simple value \(value)"))
            }
        }
    }

    /// A byte or text string's bytes, its chunks joined when it has indefinite length.
    private static func stringBytes(
        _ item: UnsafeMutablePointer<cbor_item_t>, definite: Bool,
        handle: (UnsafePointer<cbor_item_t>?) -> UnsafeMutablePointer<UInt8>?,
        length: (UnsafePointer<cbor_item_t>?) -> Int,
        chunks: (UnsafePointer<cbor_item_t>?) -> UnsafeMutablePointer<UnsafeMutablePointer<cbor_item_t>?>?,
        chunkCount: (UnsafePointer<cbor_item_t>?) -> Int
    ) -> [UInt8] {
        if definite {
            let count = length(item)
            guard count > 0, let data = handle(item) else { return [] }
            return Array(UnsafeBufferPointer(start: data, count: count))
        }
        var joined: [UInt8] = []
        let count = chunkCount(item)
        guard count > 0, let list = chunks(item) else { return [] }
        for index in 0..<count {
            guard let chunk = list[index] else { continue }
            joined += stringBytes(chunk, definite: true, handle: handle, length: length, chunks: chunks,
                                  chunkCount: chunkCount)
        }
        return joined
    }
}
