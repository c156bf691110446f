/// How long one device's whole update may take (`dfu upload --deadline`), from the first connection to the end:
/// what a device that keeps answering without ever finishing gets before its update fails.
public enum DFUDeadline: Sendable, Hashable, CustomStringConvertible {
    /// ``automaticBase`` plus ``automaticPerByte`` for every firmware byte to send.
    case automatic
    /// This long, whatever the firmware's size.
    case fixed(Duration)

    /// The automatic deadline's allowance for scanning, connecting, the jump to the bootloader, resets and swaps.
    public static let automaticBase: Duration = .seconds(300)
    /// The automatic deadline's allowance per byte: 4 ms is 250 bytes/s, several times slower than the slowest
    /// transfer measured (docs/performance.md), so a working device never meets it.
    public static let automaticPerByte: Duration = .milliseconds(4)

    /// The deadline for an update of `bytes` firmware bytes.
    public func duration(forBytes bytes: Int) -> Duration {
        switch self {
        case .automatic: Self.automaticBase + Self.automaticPerByte * max(0, bytes)
        case .fixed(let duration): duration
        }
    }

    /// "auto" or the seconds.
    public var description: String {
        switch self {
        case .automatic: "auto"
        case .fixed(let duration): duration.dfuSeconds
        }
    }
}
