import SystemSupport
import Testing

/// The event loop's kernel objects: an epoll set reports the token of what is ready, an eventfd
/// wakes it until reset, a timerfd once its deadline passed.
@Suite struct EpollSetTests {
    @Test func aSignalledCounterIsReportedReadableWithItsTokenUntilReset() throws {
        let epoll = try EpollSet()
        let counter = try EventCounter()
        defer {
            try? epoll.close()
            try? counter.close()
        }
        try epoll.add(counter.descriptor, events: .readable, token: 42)
        counter.signal()
        var ready = EpollSet.ReadyList(capacity: 4)
        try epoll.wait(into: &ready)
        #expect(ready.count == 1)
        #expect(ready[0].token == 42)
        #expect(ready[0].events.contains(.readable))
        counter.reset()
        #expect(try counter.descriptor.poll(for: .readable, timeout: .zero).isEmpty)
    }

    @Test func anArmedTimerBecomesReadableAfterItsDelayAndNotBefore() throws {
        let timer = try DeadlineTimer()
        defer { try? timer.close() }
        timer.arm(after: .seconds(60))
        #expect(try timer.descriptor.poll(for: .readable, timeout: .zero).isEmpty)
        timer.arm(after: .milliseconds(1))
        #expect(try timer.descriptor.poll(for: .readable, timeout: .seconds(10)).contains(.readable))
        timer.acknowledge()
        #expect(try timer.descriptor.poll(for: .readable, timeout: .zero).isEmpty)
    }

    @Test func aOneShotWatchReportsOnceUntilModifiedAgain() throws {
        let epoll = try EpollSet()
        let counter = try EventCounter()
        defer {
            try? epoll.close()
            try? counter.close()
        }
        try epoll.add(counter.descriptor, events: [.readable, .oneShot], token: 7)
        counter.signal()
        var ready = EpollSet.ReadyList(capacity: 4)
        try epoll.wait(into: &ready)
        #expect(ready.count == 1)
        // Still readable (not reset), but the one-shot watch rests: epoll's own descriptor is not readable.
        #expect(try epoll.descriptor.poll(for: .readable, timeout: .zero).isEmpty)
        try epoll.modify(counter.descriptor, events: [.readable, .oneShot], token: 8)
        try epoll.wait(into: &ready)
        #expect(ready[0].token == 8)
        try epoll.remove(counter.descriptor)
        #expect(try epoll.descriptor.poll(for: .readable, timeout: .zero).isEmpty)
    }

    @Test func theCurrentThreadIsRecognisedAndNoOtherIs() {
        let id = CurrentThread.id
        #expect(CurrentThread.isThread(id))
        #expect(!CurrentThread.isThread(0))
    }
}
