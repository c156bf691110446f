internal import CDBus
internal import CLinux
import Glibc
import Synchronization

/// A private connection to a D-Bus bus, with one I/O thread, async method calls, signal
/// streams and exported objects.
///
/// Create one with ``systemBus()`` or ``init(address:)``, and call ``close()`` when done:
/// the I/O thread keeps the connection alive until then.
///
/// Threading invariant (the reason this is the module's only `@unchecked Sendable` type):
/// - libdbus thread support is initialised once (`dbus_threads_init_default`) before the
///   connection is opened, so libdbus locks the connection for calls from any thread; the
///   connection is private (`dbus_connection_open_private`) and `exit_on_disconnect` is off.
/// - Only the pump thread reads from the socket (`dbus_connection_read_write` with a zero
///   timeout after its own `poll`) and pops incoming messages. Other threads only send.
/// - Every send, and every other use of the libdbus connection after start-up, happens while
///   holding `state`'s lock and only while the phase is `.open`; ``close()`` switches the
///   phase under that lock, joins the pump thread, and only then closes and unrefs the
///   connection. So the C pointer is never used after it is released.
/// - All other mutable state lives in `state` (a `Mutex`); every other stored property is a
///   constant.
public final class DBusConnection: DBusClient, @unchecked Sendable {
    let raw: OpaquePointer
    let socketDescriptor: Int32
    /// The read end of the pipe that wakes the pump thread.
    let wakeReadDescriptor: Int32
    /// The write end of the pipe that wakes the pump thread.
    let wakeWriteDescriptor: Int32
    /// A timerfd the pump thread also polls, armed for the earliest deadline of a pending call: a
    /// call made from another thread arms it without waking the pump, and nothing ticks while idle.
    let deadlineTimerDescriptor: Int32
    let state: Mutex<ConnectionState>
    let incomingCalls: AsyncStream<IncomingCall>.Continuation
    /// Whether unix file descriptors can be passed on this connection.
    public let canPassFileDescriptors: Bool
    /// The unique name the bus gave this connection, such as `:1.42`.
    public let uniqueName: BusName

    /// The default timeout of method calls.
    public static let defaultTimeout: Duration = .seconds(25)

    /// Connects to the system bus: `DBUS_SYSTEM_BUS_ADDRESS` if set, else the standard socket.
    ///
    /// Blocking: until the bus has authenticated the connection and answered `Hello`.
    public static func systemBus() throws(DBusError) -> DBusConnection {
        let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
        return try DBusConnection(address: address ?? "unix:path=/run/dbus/system_bus_socket")
    }

    /// Opens a private connection to the bus at `address` and registers with it.
    ///
    /// Blocking: until the bus has authenticated the connection and answered `Hello`.
    /// Throws a ``DBusError`` with code ``DBusError/Code/noServer`` when nothing listens there.
    public init(address: String) throws(DBusError) {
        guard LibDBus.threadsInitialised else {
            throw DBusError.noMemory("libdbus thread support could not be initialised")
        }
        guard !address.utf8.contains(0) else {
            throw DBusError(name: DBusError.Names.badAddress, message: "The bus address contains a NUL")
        }
        var opened: OpaquePointer?
        try LibDBus.check(DBusError(name: DBusError.Names.noServer, message: "Cannot connect to \(address)")) {
            cError in
            opened = address.withCString { dbus_connection_open_private($0, cError) }
            return opened != nil
        }
        guard let connection = opened else {
            throw DBusError(name: DBusError.Names.noServer, message: "Cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        func abandon() {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
        }
        do {
            try LibDBus.check(DBusError.disconnected("The bus at \(address) did not accept the connection")) { cError in
                dbus_bus_register(connection, cError) != 0
            }
        } catch {
            abandon()
            throw error
        }
        var socket: Int32 = -1
        guard let namePointer = dbus_bus_get_unique_name(connection),
            dbus_connection_get_unix_fd(connection, &socket) != 0
        else {
            abandon()
            throw DBusError.disconnected("The connection to \(address) has no unique name or socket")
        }
        var wakePipe: [Int32] = [-1, -1]
        guard pipe(&wakePipe) == 0 else {
            abandon()
            throw DBusError.failed("pipe failed with errno \(errno)")
        }
        for descriptor in wakePipe {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        // The same clock as ContinuousClock on Linux; armed with relative times only.
        let timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timer >= 0 else {
            let code = errno
            abandon()
            Glibc.close(wakePipe[0])
            Glibc.close(wakePipe[1])
            throw DBusError.failed("timerfd_create failed with errno \(code)")
        }
        raw = connection
        socketDescriptor = socket
        wakeReadDescriptor = wakePipe[0]
        wakeWriteDescriptor = wakePipe[1]
        deadlineTimerDescriptor = timer
        uniqueName = BusName(unchecked: String(cString: namePointer))
        canPassFileDescriptors = dbus_connection_can_send_type(connection, TypeCode.unixFileDescriptor) != 0
        state = Mutex(ConnectionState())
        let (calls, callsContinuation) = AsyncStream.makeStream(of: IncomingCall.self)
        incomingCalls = callsContinuation
        try startPump()
        Task { [self] in
            await serveIncomingCalls(calls)
        }
    }

    /// Closes the connection: fails waiting calls with `Disconnected`, ends signal streams,
    /// stops the I/O thread and releases the socket. Calling it again does nothing.
    ///
    /// Blocking: until the I/O thread has woken up and ended (one `poll` wake-up).
    public func close() {
        let (thread, calls, streams) = state.withLock {
            state -> (pthread_t?, [ConnectionState.PendingCall], [ConnectionState.Subscription]) in
            guard state.phase != .closed else { return (nil, [], []) }
            state.phase = .closed
            let (calls, streams) = state.takeAllWaiters()
            defer { state.pumpThread = nil }
            return (state.pumpThread, calls, streams)
        }
        guard let thread else { return }
        wake()
        if pthread_equal(thread, pthread_self()) == 0 {
            pthread_join(thread, nil)
        } else {
            pthread_detach(thread)
        }
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        Glibc.close(wakeReadDescriptor)
        Glibc.close(wakeWriteDescriptor)
        Glibc.close(deadlineTimerDescriptor)
        finish(calls, streams, with: DBusError.disconnected("The connection was closed"))
    }

    /// Whether the connection can still be used.
    public var isOpen: Bool {
        state.withLock { $0.phase == .open }
    }

    // MARK: Sending

    /// Sends a message without waiting for any reply (signals, replies, `NO_REPLY_EXPECTED` calls).
    public func send(_ message: DBusMessage) throws(DBusError) {
        let handle = try message.makeHandle()
        try state.withLock { (state) throws(DBusError) in
            _ = try sendLocked(handle, state: &state)
        }
    }

    /// Sends under the lock; returns the serial. Wakes the pump if bytes are left to write.
    func sendLocked(_ handle: MessageHandle, state: inout ConnectionState) throws(DBusError) -> UInt32 {
        guard state.phase == .open else {
            throw DBusError.disconnected("The connection to the bus is closed")
        }
        if !canPassFileDescriptors && dbus_message_contains_unix_fds(handle.pointer) != 0 {
            throw DBusError.invalidArguments("This connection cannot pass file descriptors")
        }
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, handle.pointer, &serial) != 0 else {
            throw DBusError.noMemory("Cannot queue the message")
        }
        if dbus_connection_has_messages_to_send(raw) != 0 {
            wake()
        }
        return serial
    }

    /// Arms the deadline timer for `deadline` (nil disarms it) unless it is armed for that already;
    /// called with `state` locked, which owns ``ConnectionState/timerDeadline``.
    func armDeadlineTimer(_ deadline: ContinuousClock.Instant?, state: inout ConnectionState) {
        guard deadline != state.timerDeadline else { return }
        state.timerDeadline = deadline
        var setting = itimerspec()
        if let deadline {
            // A zero value would disarm: a deadline already passed fires at once instead.
            let remaining = max(ContinuousClock.now.duration(to: deadline), .nanoseconds(1))
            setting.it_value.tv_sec = Int(remaining.components.seconds)
            setting.it_value.tv_nsec = Int(remaining.components.attoseconds / 1_000_000_000)
        }
        _ = timerfd_settime(deadlineTimerDescriptor, 0, &setting, nil)
    }

    /// Wakes the pump thread (writes a byte to its wake pipe; a full pipe already wakes it).
    func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeWriteDescriptor, &one, 1)
    }

    func finish(
        _ calls: [ConnectionState.PendingCall], _ streams: [ConnectionState.Subscription], with error: DBusError
    ) {
        for call in calls {
            call.continuation.resume(returning: .failure(error))
        }
        for stream in streams {
            stream.continuation.finish()
        }
        incomingCalls.finish()
    }
}
