// libFuzzer target: the D-Bus message decoder, wire bytes in: DBusMessage(marshalled:)
// (libdbus's dbus_message_demarshal, then our reading of the header and of every argument),
// the decoders of the standard signals, and a round trip through marshalled().
import DBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let message = try? DBusMessage(marshalled: input.all) else { return 0 }
    _ = (message.signature, message.error)
    _ = DBusPropertiesChanged(message)
    _ = DBusInterfacesAdded(message)
    _ = DBusInterfacesRemoved(message)
    for argument in message.arguments {
        _ = (argument.unwrappingVariant, argument.stringValue, argument.integerValue, argument.byteArrayValue)
    }
    // What was decoded must encode again, and decode to the same arguments.
    if let again = try? message.marshalled() {
        guard let back = try? DBusMessage(marshalled: again) else { fatalError("a decoded message does not decode after marshalling") }
        if !sameIgnoringNaN(back.arguments, message.arguments) { fatalError("a round trip changed the arguments") }
    }
    return 0
}

/// Equality of argument lists, except that NaN doubles compare equal to each other.
private func sameIgnoringNaN(_ a: [DBusValue], _ b: [DBusValue]) -> Bool {
    a == b || String(describing: a) == String(describing: b)
}
