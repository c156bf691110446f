public import DFUFormats
/// One Legacy DFU control point request.
public enum LegacyDFURequest: Sendable, Hashable, CustomStringConvertible {
    /// `01 <image type>` (the three sizes follow on the packet characteristic).
    case startDFU(PartKind)
    /// `01` alone: the original app-only Start DFU of SDK 4.3–6.0 (the size follows as one u32).
    case startDFUOriginal
    /// `02 00`: the init packet follows.
    case initializeBegin
    /// `02 01`: the init packet is complete.
    case initializeComplete
    /// `02` alone (SDK ≤ 6): the CRC-16 follows.
    case initializeCRC
    /// `08 <N u16>`: a receipt every N packets (no answer).
    case packetReceiptRequest(UInt16)
    /// `03`: the image follows.
    case receiveFirmware
    /// `04`.
    case validate
    /// `05`: the device resets into the new image (no answer).
    case activateAndReset
    /// `06`: abandon the transfer and reset (no answer).
    case reset

    /// The opcode.
    public var opCode: LegacyDFUOpCode {
        switch self {
        case .startDFU, .startDFUOriginal: .startDFU
        case .initializeBegin, .initializeComplete, .initializeCRC: .initialize
        case .packetReceiptRequest: .packetReceiptRequest
        case .receiveFirmware: .receiveFirmware
        case .validate: .validate
        case .activateAndReset: .activateAndReset
        case .reset: .reset
        }
    }

    /// Whether the bootloader answers it with a `10 <op> <status>` notification.
    public var expectsResponse: Bool {
        switch self {
        case .initializeComplete, .validate: true
        default: false
        }
    }

    /// The frame.
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.writeInteger(opCode.rawValue)
        switch self {
        case .startDFU(let kind): writer.writeInteger(kind.legacyImageType)
        case .initializeBegin: writer.writeInteger(UInt8(0x00))
        case .initializeComplete: writer.writeInteger(UInt8(0x01))
        case .packetReceiptRequest(let count): writer.writeInteger(count)
        case .startDFUOriginal, .initializeCRC, .receiveFirmware, .validate, .activateAndReset, .reset: break
        }
        return writer.bytes
    }

    /// Why bytes written to the control point are not a request this client sends.
    public struct DecodingError: Error, Sendable, Hashable {
        /// The frame.
        public let bytes: [UInt8]
    }

    /// Decodes a frame written to the control point: exactly one of the requests above, nothing after it.
    public init(bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes)
        let request: LegacyDFURequest?
        switch reader.readByte().map(LegacyDFUOpCode.init(rawValue:)) {
        case .startDFU?:
            if let type = reader.readByte() {
                request = PartKind.allCases.first { $0.legacyImageType == type }.map { .startDFU($0) }
            } else {
                request = .startDFUOriginal
            }
        case .initialize?:
            switch reader.readByte() {
            case 0x00?: request = .initializeBegin
            case 0x01?: request = .initializeComplete
            case nil: request = .initializeCRC
            default: request = nil
            }
        case .packetReceiptRequest?: request = reader.readInteger(as: UInt16.self).map { .packetReceiptRequest($0) }
        case .receiveFirmware?: request = .receiveFirmware
        case .validate?: request = .validate
        case .activateAndReset?: request = .activateAndReset
        case .reset?: request = .reset
        default: request = nil
        }
        guard let request, reader.readableBytes == 0 else { throw DecodingError(bytes: bytes) }
        self = request
    }

    /// e.g. "Start DFU (01 04)".
    public var description: String { "\(opCode) (\(bytes.hexDescription))" }
}
