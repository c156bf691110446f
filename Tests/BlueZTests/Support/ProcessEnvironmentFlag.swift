import Glibc

/// Test switches from the environment.
enum ProcessEnvironmentFlag {
    /// `DFU_TRACE_SLOW_RUNS=1` prints the progress of live runs that take over a second.
    static var traceSlowRuns: Bool { getenv("DFU_TRACE_SLOW_RUNS") != nil }
}
