/// A device named by a name that more than one device advertises (exit 64): `dfu` will not pick one.
struct AmbiguousNameError: Error, Sendable, CustomStringConvertible {
    /// The name given.
    let name: String
    /// The addresses advertising it, sorted.
    let addresses: [String]
    /// What was to be done with the device ("update", "reset", …).
    let action: String

    var description: String {
        "the name '\(name)' is advertised by \(addresses.count) devices (\(addresses.joined(separator: ", "))); "
            + "give the address of the one to \(action)"
    }
}
