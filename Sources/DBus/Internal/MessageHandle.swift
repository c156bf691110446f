internal import CDBus

/// Owns one reference to a libdbus message and drops it in `deinit` (`dbus_message_unref`).
final class MessageHandle {
    let pointer: OpaquePointer

    /// Takes over a reference the caller already holds.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Makes this message ready to be copied many times: building a message leaves its header's field cache stale
    /// (every field set invalidates it); reading the signature rebuilds it, and copies inherit it (`_dbus_header_copy`
    /// copies the cache with the bytes). Without this, reading a copy's arguments rescans its header each time (about
    /// 6,000 instructions for a packet's WriteValue).
    func primeForCopies() {
        _ = dbus_message_get_signature(pointer)
    }

    deinit {
        dbus_message_unref(pointer)
    }
}
