/// Firmware bytes for tests: deterministic, so a failure replays, and not a repeating pattern, so a
/// misplaced or repeated packet changes the checksum.
public enum TestFirmware {
    /// `size` xorshift32 bytes from `seed`.
    public static func image(size: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed &* 2_654_435_761 | 1
        return (0..<size).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
    }
}
