import Synchronization
import SystemSupport

/// One thread that waits, on one epoll set, for everything the live path waits for: the D-Bus
/// socket, the sockets bluetoothd hands out (AcquireNotify, AcquireWrite), and one timerfd that
/// carries every deadline. The thread is the loop's own, or the thread that handed itself over
/// (``runShared(onCurrentThread:)``: `dfu` runs on its main thread alone). It is also a
/// `TaskExecutor`: a task that prefers it runs its nonisolated code (and its default actors) on
/// this thread, so a notification read here resumes the task waiting for it without waking
/// another thread.
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

    private let epoll: EpollSet
    private let wake: EventCounter
    private let timer: DeadlineTimer
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

    /// Makes the calling thread the shared loop's thread and runs `main` there (given the loop), as a task that
    /// prefers the loop; when `main` returns, the process exits with the status it returned. Never returns.
    ///
    /// For a program whose work all waits on the loop (a command line tool): its tasks, the D-Bus socket, timers and
    /// signals then share the one thread the process started with, and no other is started for them. Throws when the
    /// loop's descriptors cannot be made, or when the shared loop already runs on a thread of its own.
    public static func runShared(
        onCurrentThread main: @escaping @Sendable (EventLoop) async -> Int32
    ) throws(EventLoopError) -> Never {
        let loop = try sharedLoop.withLock { loop throws(EventLoopError) -> EventLoop in
            guard loop == nil else { throw EventLoopError(operation: "running the loop on this thread", code: Errno.busy.rawValue) }
            let created = try EventLoop(startingThread: false)
            loop = created
            return created
        }
        Task(executorPreference: loop) { CurrentProcess.exit(await main(loop)) }
        loop.run()
    }

    private init(startingThread: Bool = true) throws(EventLoopError) {
        let epoll: EpollSet
        let wake: EventCounter
        do throws(Errno) { epoll = try EpollSet() } catch { throw EventLoopError(operation: "epoll_create1", code: error.rawValue) }
        do throws(Errno) { wake = try EventCounter() } catch {
            try? epoll.close()
            throw EventLoopError(operation: "eventfd", code: error.rawValue)
        }
        // On CLOCK_BOOTTIME, ContinuousClock's clock on Linux; armed with relative times.
        do throws(Errno) { timer = try DeadlineTimer() } catch {
            try? epoll.close()
            try? wake.close()
            throw EventLoopError(operation: "timerfd_create", code: error.rawValue)
        }
        self.epoll = epoll
        self.wake = wake
        do throws(Errno) {
            try epoll.add(wake.descriptor, events: .readable, token: Self.wakeToken)
            try epoll.add(timer.descriptor, events: .readable, token: Self.timerToken)
        } catch {
            closeDescriptors()
            throw EventLoopError(operation: "epoll_ctl", code: error.rawValue)
        }
        // The thread holds the loop for good: the shared loop lives as long as the process.
        guard startingThread else { return }
        do throws(ThreadStartError) {
            try DetachedThread.start { [self] in run() }
        } catch {
            closeDescriptors()
            throw EventLoopError(operation: "pthread_create", code: error.code)
        }
        // ``isCurrent`` is false everywhere until the thread has recorded itself in ``run()``.
    }

    private func closeDescriptors() {
        try? epoll.close()
        try? wake.close()
        try? timer.close()
    }

    /// Whether the caller runs on the loop's thread.
    public var isCurrent: Bool {
        CurrentThread.isThread(thread.load(ordering: .acquiring))
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
        if mustWake { wake.signal() }
    }

    // MARK: The thread

    private func run() -> Never {
        thread.store(CurrentThread.id, ordering: .releasing)
        var ready = EpollSet.ReadyList(capacity: 64)
        while true {
            runQueued()
            let waited: Void? = try? epoll.wait(into: &ready)
            state.withLock { $0.sleeping = false }
            guard waited != nil else { continue }
            for index in 0..<ready.count {
                let event = ready[index]
                switch event.token {
                case Self.wakeToken:
                    wake.reset()
                    state.withLock { $0.woken = false }
                case Self.timerToken:
                    timer.acknowledge()
                    fireDueTimers()
                default:
                    // A watch cancelled by an earlier handler of this batch is gone from the table.
                    if let handler = state.withLock({ $0.watches[event.token] }) {
                        handler(Readiness(event.events))
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
        do throws(Errno) {
            try epoll.add(FileDescriptor(rawValue: descriptor), events: interest.epollEvents(oneShot: oneShot), token: token)
        } catch {
            state.withLock { _ = $0.watches.removeValue(forKey: token) }
            throw EventLoopError(operation: "epoll_ctl", code: error.rawValue)
        }
        return LoopWatch(loop: self, token: token, descriptor: descriptor, oneShot: oneShot)
    }

    func changeWatch(token: UInt64, descriptor: Int32, to interest: Readiness, oneShot: Bool) {
        try? epoll.modify(FileDescriptor(rawValue: descriptor), events: interest.epollEvents(oneShot: oneShot), token: token)
    }

    func cancelWatch(token: UInt64, descriptor: Int32) {
        guard state.withLock({ $0.watches.removeValue(forKey: token) }) != nil else { return }
        try? epoll.remove(FileDescriptor(rawValue: descriptor))
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
        // A deadline already passed fires at once (the timer is armed for at least a nanosecond).
        timer.arm(after: ContinuousClock.now.duration(to: deadline))
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
