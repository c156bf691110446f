import DBus

/// Packets to one characteristic by `GattCharacteristic1.WriteValue` with `type` = `command`
/// (``BlueZClient/writeCommands(to:)``), each sent at once, in order with every call before and after it; each is a
/// copy of the call built once for its size (``DBusPacketCall``).
public struct BlueZWriteCommands: Sendable {
    let bus: any DBusClient
    let call: DBusPacketCall
    let timeout: Duration

    /// A packet sent with `NO_REPLY_EXPECTED`: nothing waits and nothing comes back. bluetoothd drops the answer to
    /// such a call, its errors too (BlueZ gdbus/object.c, `process_message`; `g_dbus_create_error` makes none): a packet
    /// it refuses is only missed by the device.
    public func send(_ bytes: [UInt8]) throws(BlueZError) {
        do {
            try bus.send(call, bytes: bytes)
        } catch {
            throw BlueZError(error)
        }
    }

    /// A packet whose answer is asked for, to be awaited later: bluetoothd answers once it has queued the write.
    public func sendAnsweredLater(_ bytes: [UInt8]) throws(BlueZError) -> BlueZPendingCall {
        do {
            return BlueZPendingCall(reply: try bus.send(awaitingReply: call, bytes: bytes, timeout: timeout))
        } catch {
            throw BlueZError(error)
        }
    }
}
