/// The OP field of an SMP header (zephyr `include/zephyr/mgmt/mcumgr/mgmt/mgmt_defines.h`,
/// `enum mcumgr_op_t`).
public enum SMPOperation: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Read a value (MGMT_OP_READ).
    case read = 0
    /// The answer to a read (MGMT_OP_READ_RSP).
    case readResponse = 1
    /// Write a value or run a command (MGMT_OP_WRITE).
    case write = 2
    /// The answer to a write (MGMT_OP_WRITE_RSP).
    case writeResponse = 3

    /// Whether a server sends this operation (1 and 3).
    public var isResponse: Bool { self == .readResponse || self == .writeResponse }

    /// The response operation that answers this request (read → read response, write → write response).
    public var response: SMPOperation {
        switch self {
        case .read, .readResponse: .readResponse
        case .write, .writeResponse: .writeResponse
        }
    }

    /// "read", "read response", "write", "write response".
    public var description: String {
        switch self {
        case .read: "read"
        case .readResponse: "read response"
        case .write: "write"
        case .writeResponse: "write response"
        }
    }
}
