public import CBOR

/// One SMP message: the header and its CBOR body (zephyr `smp_protocol.rst`). Over Bluetooth the
/// frame may span several writes or notifications with no extra framing (`smp_transport.rst`);
/// ``SMPFrameAssembler`` joins them.
public struct SMPFrame: Sendable, Hashable, CustomStringConvertible {
    /// The header; its `length` is the body's.
    public let header: SMPHeader
    /// The CBOR body as bytes.
    public let body: [UInt8]

    /// Why bytes are not one SMP frame.
    public enum DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The header is not valid.
        case header(SMPHeader.DecodingError)
        /// The bytes are not as long as the header says (8 + length).
        case lengthMismatch(declared: Int, actual: Int)
        /// The body is not one CBOR data item.
        case body(CBORError)
        /// The body is CBOR but not a map (every SMP body is a map).
        case bodyNotAMap(String)

        /// One line.
        public var description: String {
            switch self {
            case .header(.tooShort(let count)): "SMP frame of \(count) bytes is shorter than its 8-byte header"
            case .header(.reservedBitsSet(let bits)): "SMP header has reserved bits set (\(bits))"
            case .header(.unknownOperation(let op)): "SMP header has an unknown operation \(op)"
            case .header(.unknownVersion(let version)): "SMP header has a reserved version \(version)"
            case .lengthMismatch(let declared, let actual):
                "SMP frame is \(actual) bytes but its header says \(declared)"
            case .body(let error): "SMP body: \(error)"
            case .bodyNotAMap(let what): "SMP body is not a CBOR map but \(what)"
            }
        }
    }

    /// A frame from a header and body bytes; the header's length is set to the body's.
    public init(header: SMPHeader, body: [UInt8]) {
        var header = header
        header.length = UInt16(clamping: body.count)
        self.header = header
        self.body = body
    }

    /// A frame whose body is `value` encoded as CBOR, its arrays and maps written as `containers` says.
    public init(operation: SMPOperation, version: SMPVersion = .version2, group: SMPGroup, command: UInt8,
                sequence: UInt8, body value: CBOR, containers: CBOR.ContainerLength = .definite) throws(CBORError) {
        let body = try value.encoded(containers: containers)
        self.init(header: SMPHeader(operation: operation, version: version, length: UInt16(clamping: body.count),
                                    group: group, sequence: sequence, command: command),
                  body: body)
    }

    /// Decodes exactly one frame (header and as many body bytes as it declares).
    public init(bytes: [UInt8]) throws(DecodingError) {
        let header: SMPHeader
        do { header = try SMPHeader(bytes: bytes) } catch { throw .header(error) }
        let declared = SMPHeader.size + Int(header.length)
        guard bytes.count == declared else { throw .lengthMismatch(declared: declared, actual: bytes.count) }
        self.header = header
        body = Array(bytes[SMPHeader.size...])
    }

    /// Header and body, as written to the characteristic.
    public var bytes: [UInt8] { header.bytes + body }

    /// The body decoded as a CBOR map (an empty body reads as an empty map).
    public func decodedBody() throws(DecodingError) -> CBOR {
        if body.isEmpty { return .map([]) }
        let value: CBOR
        do { value = try CBOR(decoding: body) } catch { throw .body(error) }
        guard case .map = value else { throw .bodyNotAMap(value.description) }
        return value
    }

    /// The header, and the body in CBOR diagnostic notation when it decodes.
    public var description: String {
        let text = (try? decodedBody()).map(\.description) ?? "\(body.count) undecodable bytes"
        return "\(header): \(text)"
    }
}
