import Foundation

/// Wall-clock bounds of timing checks. The sanitizer targets (make test-asan, make test-tsan) set
/// DFU_TEST_TIME_SCALE because everything runs several times slower there; a bound that says
/// "promptly, not after the long timeout" is stretched by that factor, never shortened.
public enum TestTime {
    /// The factor from DFU_TEST_TIME_SCALE, at least 1.
    public static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["DFU_TEST_TIME_SCALE"], let value = Int(text) else { return 1 }
        return max(1, value)
    }()

    /// `bound` stretched by the scale.
    public static func scaled(_ bound: Duration) -> Duration { bound * scale }

    /// A suite's or test's time limit of `minutes`, stretched by the scale: under the sanitizers a test
    /// that has started still waits its turn for the pool's two threads behind hundreds of others.
    public static func limitMinutes(_ minutes: Int) -> Int { minutes * scale }
}
