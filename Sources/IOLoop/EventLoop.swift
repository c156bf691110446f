internal import CLinux
import Glibc
import Synchronization
import SystemSupport

/// One thread that waits, on one epoll set, for everything the live path waits for: the D-Bus
/// socket, the sockets bluetoothd hands out (AcquireNotify, AcquireWrite), and one timerfd that
/// carries every deadline. It is also a `TaskExecutor`: a task that prefers it runs its
/// nonisolated code (and its default actors) on this thread, so a notification read here resumes
/// the task waiting for it without waking another thread.
///
/// Handlers and jobs run on the loop's thread, one at a time, and must not block. Work can be
/// added from any thread; the loop is woken (an eventfd) only when it sleeps in `epoll_wait` and
/// nothing woke it yet, so work added on the loop's own thread costs no system call.
public final class EventLoop: TaskExecutor, Sendable {
    /// Something to run on the loop.
    private enum Work {
        case job(UnownedJob)
        case call(@Sendable () -> Void)
    }

    private struct State {
        var work: [Work] = []
        /// The thread found nothing to do and sleeps (or is about to) in `epoll_wait`.
        var sleeping = false
        /// The eventfd was written since the thread last read it.
        var woken = false
        var watches: [UInt64: @Sendable (Readiness) -> Void] = [:]
        var timers: [UInt64: (deadline: ContinuousClock.Instant, fire: @Sendable () -> Void)] = [:]
        /// The deadline the timerfd is armed for; nil when disarmed.
        var armedFor: ContinuousClock.Instant?
        var nextToken: UInt64 = 2
    }

    /// epoll tokens of the loop's own descriptors; watches and timers count from 2.
    private static let wakeToken: UInt64 = 0
    private static let timerToken: UInt64 = 1

    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let timerDescriptor: Int32
    private let state = Mutex(State())
    /// The loop thread's `pthread_t`, for ``isCurrent``.
    private let thread = Atomic<UInt>(0)

    private static let sharedLoop = Mutex<EventLoop?>(nil)

    /// The process's loop, started on first use and kept for the life of the process.
    public static func shared() throws(EventLoopError) -> EventLoop {
        // The body's parameter is left to inference (`inout sending`), as in every other withLock body, which
        // Sanitizers/tsan.supp recognises: spelled `inout EventLoop?` its mangled name differed, and two threads
        // contending for the first call were reported as a race, although the lock orders them.
        try sharedLoop.withLock { loop throws(EventLoopError) -> EventLoop in
            if let loop { return loop }
            let started = try EventLoop()
            loop = started
            return started
        }
    }

    private init() throws(EventLoopError) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw EventLoopError(operation: "epoll_create1", code: errno) }
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let code = errno
            _ = Glibc.close(epoll)
            throw EventLoopError(operation: "eventfd", code: code)
        }
        // CLOCK_BOOTTIME is ContinuousClock's clock on Linux; the timer is armed with relative times.
        let timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timer >= 0 else {
            let code = errno
            _ = Glibc.close(epoll)
            _ = Glibc.close(wake)
            throw EventLoopError(operation: "timerfd_create", code: code)
        }
        epollDescriptor = epoll
        wakeDescriptor = wake
        timerDescriptor = timer
        for (descriptor, token) in [(wake, Self.wakeToken), (timer, Self.timerToken)] {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = token
            guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
                let code = errno
                closeDescriptors()
                throw EventLoopError(operation: "epoll_ctl", code: code)
            }
        }
        // The thread holds the loop for good: the shared loop lives as long as the process.
        do throws(ThreadStartError) {
            try DetachedThread.start { [self] in run() }
        } catch {
            closeDescriptors()
            throw EventLoopError(operation: "pthread_create", code: error.code)
        }
        // ``isCurrent`` is false everywhere until the thread has recorded itself in ``run()``.
    }

    private func closeDescriptors() {
        _ = Glibc.close(epollDescriptor)
        _ = Glibc.close(wakeDescriptor)
        _ = Glibc.close(timerDescriptor)
    }

    /// Whether the caller runs on the loop's thread.
    public var isCurrent: Bool {
        pthread_equal(pthread_self(), pthread_t(thread.load(ordering: .acquiring))) != 0
    }

    // MARK: Work

    /// Runs `work` on the loop's thread, after the work already queued.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        push(.call(work))
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        push(.job(UnownedJob(job)))
    }

    private func push(_ item: Work) {
        let mustWake = state.withLock { state in
            state.work.append(item)
            guard state.sleeping, !state.woken else { return false }
            state.woken = true
            return true
        }
        if mustWake {
            var one: UInt64 = 1
            _ = Glibc.write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    // MARK: The thread

    private func run() {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        let capacity = 64
        var events = [epoll_event](repeating: epoll_event(), count: capacity)
        while true {
            runQueued()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollDescriptor, buffer.baseAddress, Int32(capacity), -1)
            }
            state.withLock { $0.sleeping = false }
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let token = events[index].data.u64
                let flags = events[index].events
                switch token {
                case Self.wakeToken:
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeDescriptor, &value, MemoryLayout<UInt64>.size)
                    state.withLock { $0.woken = false }
                case Self.timerToken:
                    var expirations: UInt64 = 0
                    _ = Glibc.read(timerDescriptor, &expirations, MemoryLayout<UInt64>.size)
                    fireDueTimers()
                default:
                    // A watch cancelled by an earlier handler of this batch is gone from the table.
                    if let handler = state.withLock({ $0.watches[token] }) {
                        handler(Readiness(epollEvents: flags))
                    }
                }
            }
        }
    }

    /// Runs everything queued, including what that queues; marks the thread sleeping when done.
    private func runQueued() {
        while true {
            let batch = state.withLock { state -> [Work] in
                if state.work.isEmpty {
                    state.sleeping = true
                    return []
                }
                defer { state.work.removeAll(keepingCapacity: true) }
                return state.work
            }
            if batch.isEmpty { return }
            for item in batch {
                switch item {
                case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                case .call(let call): call()
                }
            }
        }
    }

    // MARK: Watches

    /// Calls `handler` on the loop's thread whenever `descriptor` is ready for `interest` (level
    /// triggered; hang-ups and errors are always reported). With `oneShot`, the watch reports
    /// once and then rests until ``LoopWatch/change(to:)`` asks again (epoll's EPOLLONESHOT).
    ///
    /// The caller keeps the descriptor open until it has cancelled the watch (a closed descriptor
    /// whose number is reused would otherwise be taken off the loop in its place); a handler
    /// already chosen may still run once after a cancel from another thread.
    public func watch(
        _ descriptor: Int32, for interest: Readiness, oneShot: Bool = false,
        handler: @escaping @Sendable (Readiness) -> Void
    ) throws(EventLoopError) -> LoopWatch {
        let token = state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.watches[token] = handler
            return token
        }
        var event = epoll_event()
        event.events = interest.epollEvents | (oneShot ? EPOLLONESHOT.rawValue : 0)
        event.data.u64 = token
        guard epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
            let code = errno
            state.withLock { _ = $0.watches.removeValue(forKey: token) }
            throw EventLoopError(operation: "epoll_ctl", code: code)
        }
        return LoopWatch(loop: self, token: token, descriptor: descriptor, oneShot: oneShot)
    }

    func changeWatch(token: UInt64, descriptor: Int32, to interest: Readiness, oneShot: Bool) {
        var event = epoll_event()
        event.events = interest.epollEvents | (oneShot ? EPOLLONESHOT.rawValue : 0)
        event.data.u64 = token
        _ = epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, descriptor, &event)
    }

    func cancelWatch(token: UInt64, descriptor: Int32) {
        guard state.withLock({ $0.watches.removeValue(forKey: token) }) != nil else { return }
        var event = epoll_event()
        _ = epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, &event)
    }

    // MARK: Timers

    /// Calls `fire` on the loop's thread once `deadline` has passed, unless cancelled first.
    ///
    /// Every timer of the process shares the loop's one timerfd, armed for the earliest deadline;
    /// a later timer costs no system call.
    public func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> LoopTimer {
        let token = state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.timers[token] = (deadline, fire)
            if state.armedFor.map({ deadline < $0 }) ?? true { arm(for: deadline, state: &state) }
            return token
        }
        return LoopTimer(loop: self, token: token)
    }

    /// Suspends the caller until `deadline` or until its task is cancelled (a timer of this loop,
    /// no task of its own).
    public func sleep(until deadline: ContinuousClock.Instant) async {
        let sleeper = LoopSleeper()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                guard sleeper.begin(continuation) else { return continuation.resume() }
                sleeper.hold(schedule(at: deadline) { sleeper.wake() })
            }
        } onCancel: {
            sleeper.wake()
        }
    }

    func cancelTimer(token: UInt64) {
        // The timerfd stays armed: if it fires for nothing, the loop re-arms for what is left.
        state.withLock { _ = $0.timers.removeValue(forKey: token) }
    }

    private func arm(for deadline: ContinuousClock.Instant, state: inout State) {
        state.armedFor = deadline
        // A zero value would disarm: a deadline already passed fires at once instead.
        let remaining = max(ContinuousClock.now.duration(to: deadline), .nanoseconds(1))
        var setting = itimerspec()
        setting.it_value.tv_sec = Int(remaining.components.seconds)
        setting.it_value.tv_nsec = Int(remaining.components.attoseconds / 1_000_000_000)
        _ = timerfd_settime(timerDescriptor, 0, &setting, nil)
    }

    private func fireDueTimers() {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            let now = ContinuousClock.now
            var due: [(ContinuousClock.Instant, @Sendable () -> Void)] = []
            var earliest: ContinuousClock.Instant?
            for (token, timer) in state.timers {
                if timer.deadline <= now {
                    state.timers[token] = nil
                    due.append((timer.deadline, timer.fire))
                } else if earliest.map({ timer.deadline < $0 }) ?? true {
                    earliest = timer.deadline
                }
            }
            state.armedFor = nil
            if let earliest { arm(for: earliest, state: &state) }
            return due.sorted { $0.0 < $1.0 }.map(\.1)
        }
        for fire in due { fire() }
    }
}
