import Foundation
import Glibc
import Testing
import TestSupport

/// How the tests read the end of a child they started with Foundation's `Process`.
@Suite struct ProcessEndTests {
    static func sleeper() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["30"]
        try process.run()
        return process
    }

    /// The trap the helper exists for: Foundation's `terminationStatus` of a child still running ends the
    /// reading process with SIGILL (a `precondition` of an optimised library: no message), on whichever
    /// thread read it. A test whose wait for its child ran out did this on a Dispatch worker thread.
    @Test func foundationsTerminationStatusOfARunningChildEndsTheProcessWithSigill() async {
        await #expect(processExitsWith: .signal(SIGILL)) {
            let process = try ProcessEndTests.sleeper()
            defer { kill(process.processIdentifier, SIGKILL) }
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

    @Test func aChildEndedByASignalIsSeenEndingWithThatSignal() async throws {
        let process = try Self.sleeper()
        // SIGKILL: a child Foundation starts from a thread of Swift's pool inherits that thread's mask, in which
        // libdispatch blocks SIGTERM, SIGINT and SIGHUP (seen in the child's /proc status: SigBlk fffffffe3bfbea27).
        kill(process.processIdentifier, SIGKILL)
        #expect(await process.status(endingWithin: .seconds(10)) == SIGKILL)
        #expect(process.endedBySignal)
    }

    @Test func aChildThatEndedBeforeTheWaitBeganIsSeenAtOnce() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 3"]
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let start = ContinuousClock.now
        #expect(await process.status(endingWithin: .seconds(10)) == 3)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aChildNeverStartedHasNoStatus() {
        #expect(Process().statusIfEnded == nil)
        #expect(!Process().endedBySignal)
    }
}
