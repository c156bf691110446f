import DBus
import Testing

/// Only `unix:` addresses are used for the system bus: `DBUS_SYSTEM_BUS_ADDRESS` may come from an
/// environment root does not control (sudo -E, CI variables), and libdbus runs the program of a
/// `unixexec:` address and reaches the network for `tcp:` (issue 28, point 7).
@Suite struct SystemBusAddressTests {
    @Test func unixAddressesAreUsed() {
        #expect(DBusConnection.systemBusAddressDefect("unix:path=/run/dbus/system_bus_socket") == nil)
        #expect(DBusConnection.systemBusAddressDefect("unix:path=/tmp/a;unix:abstract=b") == nil)
    }

    @Test func aUnixexecAddressIsRefusedAsRunningAProgram() {
        let defect = DBusConnection.systemBusAddressDefect("unixexec:path=/bin/sh,argv1=-c,argv2=id")
        #expect(defect?.contains("DBUS_SYSTEM_BUS_ADDRESS") == true)
        #expect(defect?.contains("runs a program") == true, "\(defect ?? "")")
    }

    @Test func anyEntryThatIsNotUnixRefusesTheWholeAddress() {
        #expect(DBusConnection.systemBusAddressDefect("unix:path=/tmp/a;tcp:host=example.com,port=1")?.contains("network") == true)
        #expect(DBusConnection.systemBusAddressDefect("nonce-tcp:host=localhost")?.contains("network") == true)
        #expect(DBusConnection.systemBusAddressDefect("autolaunch:") != nil)
        #expect(DBusConnection.systemBusAddressDefect("") != nil)
        #expect(DBusConnection.systemBusAddressDefect("unixfoo:path=/x") != nil)
    }
}
