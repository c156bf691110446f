/// A wait that ran out of time.
struct HarnessTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for: \(what)" }
}
