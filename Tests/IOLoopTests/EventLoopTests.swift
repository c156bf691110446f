import Glibc
import IOLoop
import Synchronization
import Testing

/// The process's event loop: timers on its one timerfd, descriptors on its epoll set, and tasks that
/// prefer it. Real time, kept to tens of milliseconds; waits poll with short sleeps and give up after 5 s.
@Suite struct EventLoopTests {
    /// Polls `condition` every 2 ms for up to 5 s.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<2500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(2))
        }
        return condition()
    }

    static func later(_ milliseconds: Int) -> ContinuousClock.Instant {
        ContinuousClock.now.advanced(by: .milliseconds(milliseconds))
    }

    @Test func timersFireInDeadlineOrderOnTheLoopsThread() async throws {
        let loop = try EventLoop.shared()
        let fired = Mutex<[(Int, Bool)]>([])
        // Deadlines from one instant: taken one by one, a pause of more than 20 ms between the first and the second
        // (seen under ThreadSanitizer on a loaded machine) put the "30 ms" timer's deadline before the "10 ms" one's.
        let now = ContinuousClock.now
        for (order, delay) in [(3, 30), (1, 10), (2, 20)] {
            _ = loop.schedule(at: now.advanced(by: .milliseconds(delay))) { fired.withLock { $0.append((order, loop.isCurrent)) } }
        }
        #expect(try await Self.eventually { fired.withLock { $0.count } == 3 })
        let result = fired.withLock { $0 }
        #expect(result.map(\.0) == [1, 2, 3])
        #expect(result.allSatisfy { $0.1 })
        #expect(!loop.isCurrent)
    }

    @Test func aTimerFiresNoEarlierThanItsDeadline() async throws {
        let loop = try EventLoop.shared()
        let deadline = Self.later(20)
        let firedAt = Mutex<ContinuousClock.Instant?>(nil)
        _ = loop.schedule(at: deadline) { firedAt.withLock { $0 = ContinuousClock.now } }
        #expect(try await Self.eventually { firedAt.withLock { $0 } != nil })
        #expect(try #require(firedAt.withLock { $0 }) >= deadline)
    }

    @Test func aCancelledTimerNeverFires() async throws {
        let loop = try EventLoop.shared()
        let fired = Mutex<[String]>([])
        let cancelled = loop.schedule(at: Self.later(10)) { fired.withLock { $0.append("cancelled") } }
        _ = loop.schedule(at: Self.later(40)) { fired.withLock { $0.append("kept") } }
        cancelled.cancel()
        #expect(try await Self.eventually { !fired.withLock { $0 }.isEmpty })
        #expect(fired.withLock { $0 } == ["kept"])
    }

    @Test func aWatchReportsDataUntilItIsCancelled() async throws {
        let loop = try EventLoop.shared()
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        defer {
            _ = close(ends[0])
            _ = close(ends[1])
        }
        let reader = ends[1]
        let received = Mutex<[[UInt8]]>([])
        let watch = try loop.watch(reader, for: .readable) { readiness in
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = recv(reader, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if readiness.contains(.readable), count > 0 { received.withLock { $0.append(Array(buffer[0..<count])) } }
        }
        var packet: [UInt8] = [0x11, 0x01]
        _ = send(ends[0], &packet, packet.count, 0)
        #expect(try await Self.eventually { received.withLock { $0 } == [[0x11, 0x01]] })
        watch.cancel()
        _ = send(ends[0], &packet, packet.count, 0)
        try await Task.sleep(for: .milliseconds(30))
        #expect(received.withLock { $0.count } == 1)
    }

    @Test func aOneShotWatchReportsOnceUntilAskedAgain() async throws {
        let loop = try EventLoop.shared()
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        defer {
            _ = close(ends[0])
            _ = close(ends[1])
        }
        let reports = Mutex(0)
        // An empty socket stays writable: level triggered, a plain watch would report on every turn.
        let watch = try loop.watch(ends[0], for: .writable, oneShot: true) { _ in reports.withLock { $0 += 1 } }
        defer { watch.cancel() }
        #expect(try await Self.eventually { reports.withLock { $0 } == 1 })
        try await Task.sleep(for: .milliseconds(20))
        #expect(reports.withLock { $0 } == 1)
        watch.change(to: .writable)
        #expect(try await Self.eventually { reports.withLock { $0 } == 2 })
    }

    @Test func aHangUpIsReportedWithoutBeingAskedFor() async throws {
        let loop = try EventLoop.shared()
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &ends) == 0)
        defer { _ = close(ends[1]) }
        let seen = Mutex<Readiness>([])
        let watch = try loop.watch(ends[1], for: .readable, oneShot: true) { readiness in seen.withLock { $0 = readiness } }
        defer { watch.cancel() }
        _ = close(ends[0])
        #expect(try await Self.eventually { seen.withLock { $0 }.contains(.hangUp) })
    }

    @Test func aTaskThatPrefersTheLoopRunsOnItsThreadBeforeAndAfterSuspending() async throws {
        let loop = try EventLoop.shared()
        let (before, after) = await withTaskExecutorPreference(loop) {
            let before = loop.isCurrent
            await loop.sleep(until: Self.later(5))
            return (before, loop.isCurrent)
        }
        #expect(before)
        #expect(after)
    }

    /// An hour's sleep, cancelled: it ends long before its deadline (the bound is loose because the
    /// shared pool the test task runs on can be kept busy by other suites for tens of seconds).
    @Test func aSleepEndsEarlyWhenItsTaskIsCancelled() async throws {
        let loop = try EventLoop.shared()
        let started = ContinuousClock.now
        let sleeper = Task { await loop.sleep(until: Self.later(3_600_000)) }
        try await Task.sleep(for: .milliseconds(10))
        sleeper.cancel()
        await sleeper.value
        #expect(started.duration(to: .now) < .seconds(600))
    }

    /// What the loop ran, by sender.
    final class Ledger: Sendable {
        let seen = Mutex<[Int: [Int]]>([:])
        let offLoop = Mutex(0)
    }

    @Test func workQueuedFromManyThreadsAllRunsOnTheLoopInOrderPerThread() async throws {
        let loop = try EventLoop.shared()
        let ledger = Ledger()
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        loop.execute {
                            if !loop.isCurrent { ledger.offLoop.withLock { $0 += 1 } }
                            ledger.seen.withLock { $0[sender, default: []].append(index) }
                        }
                    }
                }
            }
        }
        #expect(try await Self.eventually { ledger.seen.withLock { $0.values.map(\.count).reduce(0, +) } == 4000 })
        #expect(ledger.seen.withLock { $0 }.values.allSatisfy { $0 == Array(0..<500) })
        #expect(ledger.offLoop.withLock { $0 } == 0)
    }
}
