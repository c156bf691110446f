import DBus

/// A call to bluetoothd already sent, whose answer is asked for later
/// (``BlueZWriteCommands/sendAnsweredLater(_:)``).
public struct BlueZPendingCall: Sendable {
    let reply: DBusPendingReply

    /// Nil when bluetoothd answered the call; otherwise the error it answered, or met (a timeout, the bus gone).
    public func failure() async -> BlueZError? {
        switch await reply.reply() {
        case .success: nil
        case .failure(let error): BlueZError(error)
        }
    }
}
