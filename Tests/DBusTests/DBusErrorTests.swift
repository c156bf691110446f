import DBus
import Testing

@Suite struct DBusErrorTests {
    @Test(arguments: [
        ("org.freedesktop.DBus.Error.NoReply", DBusError.Code.timedOut),
        ("org.freedesktop.DBus.Error.Timeout", .timedOut),
        ("org.freedesktop.DBus.Error.Disconnected", .disconnected),
        ("org.freedesktop.DBus.Error.NoServer", .noServer),
        ("org.freedesktop.DBus.Error.FileNotFound", .noServer),
        ("org.freedesktop.DBus.Error.AccessDenied", .accessDenied),
        ("org.freedesktop.DBus.Error.ServiceUnknown", .noSuchName),
        ("org.freedesktop.DBus.Error.NameHasNoOwner", .noSuchName),
        ("org.freedesktop.DBus.Error.UnknownObject", .unknownObject),
        ("org.freedesktop.DBus.Error.UnknownMethod", .unknownMethod),
        ("org.freedesktop.DBus.Error.InvalidArgs", .invalidArguments),
        ("org.freedesktop.DBus.Error.PropertyReadOnly", .propertyReadOnly),
        ("org.bluez.Error.InProgress", .other),
    ])
    func errorNamesMapToCodes(name: String, code: DBusError.Code) {
        #expect(DBusError(name: name, message: "m").code == code)
    }

    @Test func descriptionKeepsNameAndMessage() {
        let error = DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
        #expect(error.description == "org.bluez.Error.Failed: le-connection-abort-by-local")
        #expect(DBusError(name: "org.bluez.Error.Failed", message: "").description == "org.bluez.Error.Failed")
    }
}
