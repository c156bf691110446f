/// An incoming method call waiting for a user handler.
struct IncomingCall: Sendable {
    /// The call as received.
    let message: DBusMessage
    /// The exported method that answers it.
    let method: DBusMethod
}
