/// A command stopped by Ctrl-C or SIGTERM, with where it left the device; exit 130.
struct InterruptedError: Error, Sendable, CustomStringConvertible {
    /// e.g. "images interrupted; nothing on the device was changed".
    let description: String
}
