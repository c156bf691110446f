/// The 8-byte header in front of every SMP frame, big-endian (zephyr
/// `doc/services/device_mgmt/smp_protocol.rst`, "Frame: The envelope"; `MGMT_HDR_SIZE` in
/// `mgmt_defines.h`):
///
/// ```
/// byte 0   Res (3 bits, 0) | Ver (2 bits) | OP (3 bits)
/// byte 1   Flags (none defined; 0)
/// byte 2-3 Data Length, u16 BE: the CBOR body's length
/// byte 4-5 Group ID, u16 BE
/// byte 6   Sequence Num
/// byte 7   Command ID
/// ```
public struct SMPHeader: Sendable, Hashable, CustomStringConvertible {
    /// The header's size in bytes.
    public static let size = 8

    /// Read, write, or their responses.
    public var operation: SMPOperation
    /// The protocol version (which error shape the server uses).
    public var version: SMPVersion
    /// The flags byte (no flags are defined; sent as 0, kept as received).
    public var flags: UInt8
    /// The body's length in bytes.
    public var length: UInt16
    /// The management group.
    public var group: SMPGroup
    /// The sequence number; a response carries its request's.
    public var sequence: UInt8
    /// The command within the group.
    public var command: UInt8

    /// Why 8 bytes are not an SMP header.
    public enum DecodingError: Error, Sendable, Hashable {
        /// Fewer than 8 bytes.
        case tooShort(Int)
        /// The reserved top three bits are not zero.
        case reservedBitsSet(UInt8)
        /// OP is above 3 (not a `mcumgr_op_t`).
        case unknownOperation(UInt8)
        /// Ver is 2 or 3 (reserved for future use).
        case unknownVersion(UInt8)
    }

    /// A header.
    public init(operation: SMPOperation, version: SMPVersion = .version2, flags: UInt8 = 0, length: UInt16,
                group: SMPGroup, sequence: UInt8, command: UInt8) {
        self.operation = operation
        self.version = version
        self.flags = flags
        self.length = length
        self.group = group
        self.sequence = sequence
        self.command = command
    }

    /// Decodes the first 8 bytes of `bytes`.
    public init(bytes: some Collection<UInt8>) throws(DecodingError) {
        let b = Array(bytes.prefix(Self.size))
        guard b.count == Self.size else { throw .tooShort(b.count) }
        guard b[0] & 0xE0 == 0 else { throw .reservedBitsSet(b[0] >> 5) }
        guard let operation = SMPOperation(rawValue: b[0] & 0x07) else { throw .unknownOperation(b[0] & 0x07) }
        guard let version = SMPVersion(rawValue: (b[0] >> 3) & 0x03) else { throw .unknownVersion((b[0] >> 3) & 0x03) }
        self.init(operation: operation, version: version, flags: b[1],
                  length: UInt16(b[2]) << 8 | UInt16(b[3]), group: SMPGroup(rawValue: UInt16(b[4]) << 8 | UInt16(b[5])),
                  sequence: b[6], command: b[7])
    }

    /// The 8 bytes on the wire.
    public var bytes: [UInt8] {
        [version.rawValue << 3 | operation.rawValue, flags, UInt8(length >> 8), UInt8(length & 0xFF),
         UInt8(group.rawValue >> 8), UInt8(group.rawValue & 0xFF), sequence, command]
    }

    /// e.g. "write image/1 seq 7, 12 bytes (SMP version 2)".
    public var description: String {
        "\(operation) \(group)/\(command) seq \(sequence), \(length) bytes (\(version))"
    }
}
