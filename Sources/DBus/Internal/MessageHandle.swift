internal import CDBus

/// Owns one reference to a libdbus message and drops it in `deinit` (`dbus_message_unref`).
final class MessageHandle {
    let pointer: OpaquePointer

    /// Takes over a reference the caller already holds.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        dbus_message_unref(pointer)
    }
}
