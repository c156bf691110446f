/// A decoded Secure DFU control point notification: `60 <request op> <result> [payload]`.
public struct SecureDFUResponse: Sendable, Hashable, CustomStringConvertible {
    /// The opcode of the request being answered.
    public let request: SecureDFUOpCode
    /// The result.
    public let result: SecureDFUResultCode
    /// The extended error when `result` is 0x0B.
    public let extendedError: SecureDFUExtendedError?
    /// Select's answer: the maximum object size.
    public let maxSize: UInt32?
    /// Select's and Calculate Checksum's answer (and PRNs): bytes received so far.
    public let offset: UInt32?
    /// Select's and Calculate Checksum's answer (and PRNs): CRC-32 of the bytes received so far.
    public let crc: UInt32?
    /// The frame as received.
    public let bytes: [UInt8]

    /// Why a notification is not a valid Secure DFU response.
    public enum DecodingError: Error, Sendable, Hashable {
        /// The frame does not start with 0x60 or is shorter than 3 bytes.
        case notAResponse
        /// A successful response lacks its payload.
        case truncatedPayload
    }

    /// Decodes a notification; payload fields are read only for a successful Select or Checksum.
    public init(bytes: [UInt8]) throws(DecodingError) {
        var reader = WireReader(bytes)
        guard reader.readByte() == SecureDFUOpCode.response.rawValue,
            let op = reader.readByte(), let status = reader.readByte()
        else { throw .notAResponse }
        self.bytes = bytes
        request = SecureDFUOpCode(rawValue: op)
        result = SecureDFUResultCode(rawValue: status)
        extendedError = result == .extendedError ? reader.readByte().map(SecureDFUExtendedError.init(rawValue:)) : nil
        var maxSize: UInt32?
        var offset: UInt32?
        var crc: UInt32?
        if result == .success {
            if request == .selectObject {
                guard let m = reader.readUInt32(), let o = reader.readUInt32(), let c = reader.readUInt32() else {
                    throw .truncatedPayload
                }
                (maxSize, offset, crc) = (m, o, c)
            } else if request == .calculateChecksum {
                guard let o = reader.readUInt32(), let c = reader.readUInt32() else { throw .truncatedPayload }
                (offset, crc) = (o, c)
            }
        }
        self.maxSize = maxSize
        self.offset = offset
        self.crc = crc
    }

    /// The opcode, result and bytes, e.g. "Select Object → success (0x01) (60 06 01 …)".
    public var description: String {
        var text = "\(request) → \(result)"
        if let extendedError { text += ": \(extendedError)" }
        return text + " (\(bytes.hexDescription))"
    }
}
