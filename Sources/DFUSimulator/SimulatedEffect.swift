/// Something a simulated firmware does in answer to a write, later in time.
public enum SimulatedEffect: Sendable, Hashable {
    /// Send a notification/indication on a characteristic, `after` the write arrived.
    case notify(characteristic: String, bytes: [UInt8], after: Duration)
    /// Reset `after` the write arrived (the link drops) and boot into `target`.
    case reboot(into: SimulatedBootTarget, after: Duration)
}
