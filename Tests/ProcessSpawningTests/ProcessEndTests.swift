import Foundation
import Glibc
import Testing
import TestSupport

/// How the tests read the end of a child they started with Foundation's `Process`.
@Suite struct ProcessEndTests {
    /// A child that runs until killed: `sleep infinity` (a bounded sleep could end first when the pool is starved,
    /// as under AddressSanitizer, where this suite's tasks waited 38 s); or, where nothing would kill it (a process
    /// that traps), one that ends by itself.
    static func sleeper(_ seconds: String = "infinity") throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = [seconds]
        try process.run()
        return process
    }

    /// How the process that read the status ends: by the SIGILL itself, or, under `make test-asan` (whose
    /// ASAN_OPTIONS has `handle_sigill=1`), by AddressSanitizer's report of it, which exits with status 1.
    static var trapped: ExitTest.Condition {
        let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] ?? ""
        return options.contains("handle_sigill=1") ? .exitCode(1) : .signal(SIGILL)
    }

    /// The trap the helper exists for: Foundation's `terminationStatus` of a child still running ends the
    /// reading process with SIGILL (a `precondition` of an optimised library: no message), on whichever
    /// thread read it. A test whose wait for its child ran out did this on a Dispatch worker thread.
    @Test func foundationsTerminationStatusOfARunningChildEndsTheProcessWithSigill() async {
        await #expect(processExitsWith: Self.trapped) {
            // The trap runs no defer: the child ends by itself.
            let process = try ProcessEndTests.sleeper("30")
            _ = process.terminationStatus
        }
    }

    @Test func aRunningChildHasNoStatusAndAWaitThatRunsOutSaysSo() async throws {
        let process = try Self.sleeper()
        defer { kill(process.processIdentifier, SIGKILL) }
        #expect(process.statusIfEnded == nil)
        #expect(!process.endedBySignal)
        #expect(await process.status(endingWithin: .milliseconds(100)) == nil)
        #expect(process.isRunning)
    }

    @Test(.timeLimit(.minutes(5))) func aChildEndedByASignalIsSeenEndingWithThatSignal() async throws {
        let process = try Self.sleeper()
        // SIGKILL: a child Foundation starts from a thread of Swift's pool inherits that thread's mask, in which
        // libdispatch blocks SIGTERM, SIGINT and SIGHUP (seen in the child's /proc status: SigBlk fffffffe3bfbea27).
        kill(process.processIdentifier, SIGKILL)
        #expect(await process.status(endingWithin: .seconds(600)) == SIGKILL)
        #expect(process.endedBySignal)
    }

    /// Were it not seen, the wait would last its 600 s and the time limit would fail the test (a limit, not a
    /// measured duration: how soon a task runs again depends on the load).
    @Test(.timeLimit(.minutes(5))) func aChildThatEndedBeforeTheWaitBeganIsSeenAtOnce() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 3"]
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await process.status(endingWithin: .seconds(600)) == 3)
    }

    @Test func aChildNeverStartedHasNoStatus() {
        #expect(Process().statusIfEnded == nil)
        #expect(!Process().endedBySignal)
    }
}
