@testable import BlueZTransport
import DFUCore
import IOLoop
import TestSupport
import Testing

/// The notification queue and its lazily armed timeout timer. Timeouts are real time here (the
/// class runs on the continuous clock), kept to tens of milliseconds.
@Suite struct LinkEventsTests {
    static let response = DFUNotification(endpoint: .secureControlPoint, bytes: [0x60, 0x01, 0x01])

    /// Events timed on the process's event loop, as a link's are.
    static func events() throws -> LinkEvents {
        LinkEvents(loop: try EventLoop.shared())
    }

    @Test func aQueuedNotificationIsReturnedAtOnce() async throws {
        let events = try Self.events()
        events.post(Self.response)
        let notification = try await events.next(within: .seconds(60))
        #expect(notification == Self.response)
    }

    @Test func aNotificationPostedWhileWaitingEndsTheWait() async throws {
        let events = try Self.events()
        async let notification = events.next(within: .seconds(60))
        try await Task.sleep(for: .milliseconds(10))
        events.post(Self.response)
        #expect(try await notification == Self.response)
    }

    @Test func aWaitWithNothingPostedTimesOut() async throws {
        let events = try Self.events()
        let started = ContinuousClock.now
        await #expect(throws: DFUTransportError.timedOut) { try await events.next(within: .milliseconds(30)) }
        #expect(started.duration(to: .now) >= .milliseconds(30))
    }

    /// The timer stays armed for the first, long wait; the short one after it must re-arm it earlier.
    @Test func aShortWaitAfterALongOneStillTimesOutOnTime() async throws {
        let events = try Self.events()
        async let first = events.next(within: TestTime.scaled(.seconds(60)))
        try await Task.sleep(for: .milliseconds(10))
        events.post(Self.response)
        #expect(try await first == Self.response)
        let started = ContinuousClock.now
        await #expect(throws: DFUTransportError.timedOut) { try await events.next(within: .milliseconds(30)) }
        // Far below the 60 s the first wait armed (a timer not re-armed ends there), and far above what a
        // busy test process needs to run a 30 ms timer (both stretched by DFU_TEST_TIME_SCALE: 5.6 s and
        // once 32 s were seen under ASan with a build running beside it).
        #expect(started.duration(to: .now) < TestTime.scaled(.seconds(30)))
    }

    /// The timer is armed for the short wait for the link to go down; when it fires it must end that wait
    /// and re-arm for the reader's later deadline, not expire the reader too.
    @Test func aTimerFiringForAnEarlierWaitLeavesALaterOneWaiting() async throws {
        let events = try Self.events()
        async let reader = events.next(within: .seconds(60))
        #expect(await events.waitForDown(within: .milliseconds(50)) == false)
        events.post(Self.response)
        #expect(try await reader == Self.response)
    }

    @Test func waitForDownTimesOutWhileTheLinkStaysUpAndReturnsTrueWhenItDrops() async throws {
        let events = try Self.events()
        #expect(await events.waitForDown(within: .milliseconds(20)) == false)
        async let dropped = events.waitForDown(within: .seconds(60))
        try await Task.sleep(for: .milliseconds(10))
        events.markDown()
        #expect(await dropped)
        await #expect(throws: DFUTransportError.disconnected) { try await events.next(within: .seconds(60)) }
    }

    @Test func aCancelledWaitEndsWithoutItsTimeout() async throws {
        let events = try Self.events()
        let waiter = Task { try await events.next(within: .seconds(60)) }
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: DFUTransportError.self) { try result.get() }
    }
}
