internal import CDBus

/// The single place where libdbus error structs and validators are called.
///
/// Every helper copies the C error name and message into a Swift ``DBusError`` right away
/// and frees the C struct before returning.
enum LibDBus {
    /// Initialises libdbus thread support once per process (`dbus_threads_init_default`).
    static let threadsInitialised: Bool = dbus_threads_init_default() != 0

    /// Runs `body` with an initialised C error struct and converts a failure into a ``DBusError``.
    ///
    /// `body` returns `true` on success. When it returns `false`, the C error's name and message
    /// are copied; `fallback` is used when libdbus set no error (out of memory).
    static func check(
        _ fallback: @autoclosure () -> DBusError,
        _ body: (UnsafeMutablePointer<CDBus.DBusError>) -> Bool
    ) throws(DBusError) {
        var cError = CDBus.DBusError()
        dbus_error_init(&cError)
        defer { dbus_error_free(&cError) }
        if body(&cError) { return }
        if dbus_error_is_set(&cError) != 0, let namePointer = cError.name {
            let message = cError.message.map { String(cString: $0) } ?? ""
            throw DBusError(name: String(cString: namePointer), message: message)
        }
        throw fallback()
    }

    /// Validates `string` with one of libdbus's `dbus_validate_*` functions.
    ///
    /// Strings with an embedded NUL are refused first, as C would only see their prefix.
    static func validate(
        _ string: String,
        what: String,
        with validator: (UnsafePointer<CChar>, UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t
    ) throws(DBusError) {
        guard !string.utf8.contains(0) else {
            throw DBusError.invalidArguments("Invalid \(what) \"\(string)\": it contains a NUL character")
        }
        try check(DBusError.invalidArguments("Invalid \(what) \"\(string)\"")) { cError in
            string.withCString { validator($0, cError) != 0 }
        }
    }

    /// This machine's D-Bus id (`dbus_try_get_local_machine_id`), or `nil` when it cannot be read.
    static func localMachineID() -> String? {
        var cError = CDBus.DBusError()
        dbus_error_init(&cError)
        defer { dbus_error_free(&cError) }
        guard let pointer = dbus_try_get_local_machine_id(&cError) else { return nil }
        defer { dbus_free(pointer) }
        return String(cString: pointer)
    }
}
