import DFUFormats
/// A decoded Secure DFU control point notification: `60 <request op> <result> [payload]`.
///
/// Each case carries exactly what that answer holds, so a machine matches the answer it expects and never
/// unwraps a field that may be absent: over BLE the bootloader encodes a payload only for a successful
/// Select or Calculate Checksum (whose frame packet receipts reuse), and the extended error byte only with
/// result 0x0B (nRF5 SDK 15–17 `components/libraries/bootloader/ble_dfu/nrf_dfu_ble.c`; the opcode table of
/// docs/conformance-nrf5.md).
public enum SecureDFUResponse: Sendable, Hashable, CustomStringConvertible {
    /// `60 06 01 <max size u32> <offset u32> <crc u32>`: Select Object succeeded.
    case selected(maxSize: UInt32, offset: UInt32, crc: UInt32)
    /// `60 03 01 <offset u32> <crc u32>`: Calculate Checksum succeeded, or a packet receipt (the same frame).
    case checksum(offset: UInt32, crc: UInt32)
    /// `60 <op> 01`: any other request succeeded.
    case succeeded(SecureDFUOpCode)
    /// `60 <op> <result> [<extended error>]`: the request was refused; the extended error is there only with
    /// result 0x0B, when the device sent it.
    case refused(SecureDFUOpCode, SecureDFUResultCode, SecureDFUExtendedError?)

    /// Why a notification is not a valid Secure DFU response.
    public enum DecodingError: Error, Sendable, Hashable {
        /// The frame does not start with 0x60 or is shorter than 3 bytes.
        case notAResponse
        /// A successful Select or Calculate Checksum lacks its payload.
        case truncatedPayload
    }

    /// Decodes a notification. Bytes after what the answer holds are ignored, as the SDK's clients do.
    public init(bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes)
        guard reader.readByte() == SecureDFUOpCode.response.rawValue, let op = reader.readByte(),
            let status = reader.readByte()
        else { throw .notAResponse }
        let request = SecureDFUOpCode(rawValue: op)
        let result = SecureDFUResultCode(rawValue: status)
        guard result == .success else {
            let extended = result == .extendedError ? reader.readByte().map(SecureDFUExtendedError.init(rawValue:)) : nil
            self = .refused(request, result, extended)
            return
        }
        switch request {
        case .selectObject:
            guard let maxSize = reader.readInteger(as: UInt32.self), let offset = reader.readInteger(as: UInt32.self),
                let crc = reader.readInteger(as: UInt32.self)
            else { throw .truncatedPayload }
            self = .selected(maxSize: maxSize, offset: offset, crc: crc)
        case .calculateChecksum:
            guard let offset = reader.readInteger(as: UInt32.self), let crc = reader.readInteger(as: UInt32.self) else {
                throw .truncatedPayload
            }
            self = .checksum(offset: offset, crc: crc)
        default:
            self = .succeeded(request)
        }
    }

    /// The opcode of the request being answered.
    public var request: SecureDFUOpCode {
        switch self {
        case .selected: .selectObject
        case .checksum: .calculateChecksum
        case .succeeded(let op), .refused(let op, _, _): op
        }
    }

    /// The result code.
    public var result: SecureDFUResultCode {
        if case .refused(_, let result, _) = self { return result }
        return .success
    }

    /// The frame, as a bootloader sends it.
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.writeInteger(SecureDFUOpCode.response.rawValue)
        writer.writeInteger(request.rawValue)
        writer.writeInteger(result.rawValue)
        switch self {
        case .selected(let maxSize, let offset, let crc):
            writer.writeInteger(maxSize)
            writer.writeInteger(offset)
            writer.writeInteger(crc)
        case .checksum(let offset, let crc):
            writer.writeInteger(offset)
            writer.writeInteger(crc)
        case .refused(_, _, let extended?):
            writer.writeInteger(extended.rawValue)
        case .succeeded, .refused:
            break
        }
        return writer.bytes
    }

    /// The opcode, result and bytes, e.g. "Select Object → success (0x01) (60 06 01 …)".
    public var description: String {
        var text = "\(request) → \(result)"
        if case .refused(_, _, let extended?) = self { text += ": \(extended)" }
        return text + " (\(bytes.hexDescription(upTo: 32)))"
    }
}
