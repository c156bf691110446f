import DFUFormats
/// A decoded buttonless indication: `20 <request op> <status>` (nRF5 SDK 15
/// `components/ble/ble_services/ble_dfu/ble_dfu.c`, `ble_dfu_resp_send`).
public struct ButtonlessResponse: Sendable, Hashable, CustomStringConvertible {
    /// The opcode of the request being answered.
    public let request: ButtonlessOpCode
    /// The status.
    public let status: ButtonlessStatus

    /// Why an indication is not a buttonless response.
    public struct DecodingError: Error, Sendable, Hashable {
        /// The frame.
        public let bytes: [UInt8]
    }

    /// A response to `request` with `status`.
    public init(request: ButtonlessOpCode, status: ButtonlessStatus) {
        self.request = request
        self.status = status
    }

    /// Decodes an indication; bytes after the status are ignored.
    public init(bytes: [UInt8]) throws(DecodingError) {
        var reader = ByteReader(bytes)
        guard reader.readByte() == ButtonlessOpCode.response.rawValue, let op = reader.readByte(),
            let status = reader.readByte()
        else { throw DecodingError(bytes: bytes) }
        self.init(request: ButtonlessOpCode(rawValue: op), status: ButtonlessStatus(rawValue: status))
    }

    /// The frame, as an application sends it.
    public var bytes: [UInt8] { [ButtonlessOpCode.response.rawValue, request.rawValue, status.rawValue] }

    /// e.g. "Enter Bootloader → success (0x01)".
    public var description: String { "\(request) → \(status)" }
}
