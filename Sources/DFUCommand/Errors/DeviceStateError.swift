/// The device is not in a state the command can act on (e.g. `dfu confirm` on a device that lists no
/// running image); exit 1, as for a device that refused.
struct DeviceStateError: Error, Sendable, CustomStringConvertible {
    /// What the device shows and what to do, one sentence.
    let description: String
}
