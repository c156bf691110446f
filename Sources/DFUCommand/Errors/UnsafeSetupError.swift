/// A setting `dfu` refuses to use because it is unsafe: a `DBUS_SYSTEM_BUS_ADDRESS` that is not a `unix:`
/// address (a `unixexec:` one runs a program). `dfu` exits with 78 and opens nothing.
struct UnsafeSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is refused and why, one sentence.
    let reason: String

    /// The sentence.
    var description: String { reason }
}
