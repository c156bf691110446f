internal import CCbor

/// Walks one CBOR data item's headers with libcbor's streaming decoder (`cbor_stream_decode`,
/// which builds nothing) and finds where the item ends, refusing it when it is truncated,
/// malformed, nests deeper or holds more items than the limits allow.
final class CBORStructureScan {
    private let limits: CBORLimits
    /// Children still expected by each open container, innermost last; nil: indefinite length.
    private var open: [Int?] = []
    private var items = 0
    private var finished = false
    private var failure: CBORError.Kind?

    private init(limits: CBORLimits) {
        self.limits = limits
    }

    /// The length in bytes of the data item at the start of `base`.
    static func itemLength(_ base: UnsafePointer<UInt8>, count: Int, limits: CBORLimits) throws(CBORError) -> Int {
        let scan = CBORStructureScan(limits: limits)
        let context = Unmanaged.passUnretained(scan).toOpaque()
        var callbacks = Self.callbacks
        var offset = 0
        while offset < count {
            let result = withExtendedLifetime(scan) {
                cbor_stream_decode(base + offset, count - offset, &callbacks, context)
            }
            switch result.status {
            case CBOR_DECODER_FINISHED: break
            case CBOR_DECODER_NEDATA: throw CBORError(.truncated, offset: offset)
            default: throw CBORError(.malformed, offset: offset)
            }
            if let failure = scan.failure { throw CBORError(failure, offset: offset) }
            offset += result.read
            if scan.finished { return offset }
        }
        throw CBORError(.truncated, offset: count)
    }

    fileprivate func leaf() {
        guard count() else { return }
        completed()
    }

    fileprivate func container(_ children: Int?) {
        guard count() else { return }
        if children == 0 {
            completed()
            return
        }
        open.append(children)
        if open.count > limits.maxDepth { fail(.tooDeep(limit: limits.maxDepth)) }
    }

    fileprivate func breakCode() {
        guard failure == nil else { return }
        guard let last = open.last, last == nil else {
            fail(.malformed)
            return
        }
        open.removeLast()
        completed()
    }

    /// Counts one more item; false when that is one too many.
    private func count() -> Bool {
        guard failure == nil else { return false }
        items += 1
        if items > limits.maxItems {
            fail(.tooManyItems(limit: limits.maxItems))
            return false
        }
        return true
    }

    /// An item ended: its container needs one child fewer, and may itself have ended.
    private func completed() {
        while let last = open.last {
            guard let remaining = last else { return }
            if remaining > 1 {
                open[open.count - 1] = remaining - 1
                return
            }
            open.removeLast()
        }
        finished = true
    }

    fileprivate func fail(_ kind: CBORError.Kind) {
        if failure == nil { failure = kind }
    }

    /// One callback per kind of header; each reports to the scan behind the context pointer.
    private static var callbacks: cbor_callbacks {
        var c = cbor_empty_callbacks
        c.uint8 = { context, _ in scan(context)?.leaf() }
        c.uint16 = { context, _ in scan(context)?.leaf() }
        c.uint32 = { context, _ in scan(context)?.leaf() }
        c.uint64 = { context, _ in scan(context)?.leaf() }
        c.negint8 = { context, _ in scan(context)?.leaf() }
        c.negint16 = { context, _ in scan(context)?.leaf() }
        c.negint32 = { context, _ in scan(context)?.leaf() }
        c.negint64 = { context, _ in scan(context)?.leaf() }
        c.byte_string = { context, _, _ in scan(context)?.leaf() }
        c.string = { context, _, _ in scan(context)?.leaf() }
        c.byte_string_start = { context in scan(context)?.container(nil) }
        c.string_start = { context in scan(context)?.container(nil) }
        c.indef_array_start = { context in scan(context)?.container(nil) }
        c.indef_map_start = { context in scan(context)?.container(nil) }
        // The count is size_t in libcbor 0.8 (Debian 12), arriving as Int, and uint64_t in 0.10
        // (Debian 13, make deb-arm64); Int(exactly:) takes either. A count of 2^63 or more is refused
        // (it reads negative as Int, or does not fit one), and no input holds that many.
        c.array_start = { context, size in
            guard let scan = scan(context) else { return }
            guard let count = Int(exactly: size), count >= 0 else { return scan.fail(.malformed) }
            scan.container(count)
        }
        c.map_start = { context, size in
            guard let scan = scan(context) else { return }
            guard let count = Int(exactly: size), count >= 0, count <= Int.max / 2 else { return scan.fail(.malformed) }
            scan.container(count * 2)
        }
        // A tag is refused here, before libcbor builds it: no SMP message carries one.
        c.tag = { context, value in scan(context)?.fail(.unsupported("a tag (\(value))")) }
        c.float2 = { context, _ in scan(context)?.leaf() }
        c.float4 = { context, _ in scan(context)?.leaf() }
        c.float8 = { context, _ in scan(context)?.leaf() }
        c.undefined = { context in scan(context)?.leaf() }
        c.null = { context in scan(context)?.leaf() }
        c.boolean = { context, _ in scan(context)?.leaf() }
        c.indef_break = { context in scan(context)?.breakCode() }
        return c
    }
}

/// The scan behind a callback's context pointer.
private func scan(_ context: UnsafeMutableRawPointer?) -> CBORStructureScan? {
    context.map { Unmanaged<CBORStructureScan>.fromOpaque($0).takeUnretainedValue() }
}
