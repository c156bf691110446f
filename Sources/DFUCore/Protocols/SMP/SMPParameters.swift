/// The MCUmgr parameters (OS group, command 6; zephyr `smp_group_0.rst`, "MCUMGR Parameters";
/// `os_mgmt_mcumgr_params` in `subsys/mgmt/mcumgr/grp/os_mgmt/src/os_mgmt.c` answers
/// `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` and `_COUNT`): the size of one of the server's receive
/// buffers, which holds a whole SMP frame header included, and how many there are.
public struct SMPParameters: Sendable, Hashable, CustomStringConvertible {
    /// Bytes in one receive buffer: the largest request frame.
    public var bufferSize: Int
    /// Receive buffers.
    public var bufferCount: Int

    /// Parameters.
    public init(bufferSize: Int, bufferCount: Int) {
        self.bufferSize = bufferSize
        self.bufferCount = bufferCount
    }

    /// What is assumed of a server that does not answer command 6 (older MCUmgr): frames no larger
    /// than MCUmgr's default receive buffer (384 bytes: `MCUMGR_BUF_SIZE` in the `subsys/mgmt/mcumgr/Kconfig`
    /// of the Zephyr releases before the parameters command), and, deliberately, one request at a
    /// time (a count of 2, where those releases default to 4).
    public static let fallback = SMPParameters(bufferSize: 384, bufferCount: 2)

    /// "buf_size 2475, buf_count 4".
    public var description: String { "buf_size \(bufferSize), buf_count \(bufferCount)" }
}
