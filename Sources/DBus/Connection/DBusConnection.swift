internal import CDBus
public import IOLoop
import Synchronization
import SystemSupport

/// A private connection to a D-Bus bus, served by an ``EventLoop`` (the process's shared one
/// unless another is given), with async method calls, signal streams and exported objects.
///
/// Create one with ``systemBus()`` or ``init(address:loop:)``, and call ``close()`` when done:
/// the loop's watch of its socket keeps the connection alive until then.
///
/// Threading invariant (the reason this is the module's only `@unchecked Sendable` type):
/// - libdbus thread support is initialised once (`dbus_threads_init_default`) before the
///   connection is opened, so libdbus locks the connection for calls from any thread; the
///   connection is private (`dbus_connection_open_private`) and `exit_on_disconnect` is off.
/// - Only the loop's thread reads from the socket (`dbus_connection_read_write` with a zero
///   timeout when epoll says the socket is ready) and pops incoming messages. Other threads
///   only send: libdbus writes a message at once when the socket takes it, and what it could
///   not write makes the loop watch the socket for room too.
/// - Every send, and every other use of the libdbus connection after start-up, happens while
///   holding `state`'s lock and only while the phase is `.open`; ``close()`` switches the
///   phase under that lock and removes the socket from the loop, and only then closes and
///   unrefs the connection. So the C pointer is never used after it is released.
/// - All other mutable state lives in `state` (a `Mutex`); every other stored property is a
///   constant.
public final class DBusConnection: DBusClient, @unchecked Sendable {
    let raw: OpaquePointer
    /// Our own duplicate of the bus socket, the one the loop watches. libdbus closes its descriptor by itself when
    /// the connection is lost (inside a read or write), before we can take it off the loop; the loop would then be
    /// told to stop watching a number the process may already have reused for something else. The duplicate stays
    /// open until the watch is cancelled (``ConnectionState/stopWatching()``), then closes.
    let watchedSocket: OwnedFileDescriptor
    /// The loop that reads the socket and runs the call deadlines.
    public let loop: EventLoop
    let state: Mutex<ConnectionState>
    let incomingCalls: AsyncStream<IncomingCall>.Continuation
    /// Whether unix file descriptors can be passed on this connection.
    public let canPassFileDescriptors: Bool
    /// The unique name the bus gave this connection, such as `:1.42`.
    public let uniqueName: BusName
    /// The small method calls sent lately, copied instead of built again when sent again.
    let templates = MessageTemplates()

    /// The default timeout of method calls.
    public static let defaultTimeout: Duration = .seconds(25)

    /// Connects to the system bus: `DBUS_SYSTEM_BUS_ADDRESS` if set, else the standard socket.
    ///
    /// Blocking: until the bus has authenticated the connection and answered `Hello`.
    /// Throws a ``DBusError`` named ``DBusError/Names/badAddress`` when `DBUS_SYSTEM_BUS_ADDRESS` is not a
    /// `unix:` address (``systemBusAddressDefect(_:)``): nothing is opened.
    public static func systemBus() throws(DBusError) -> DBusConnection {
        let address = CurrentProcess.environmentValue("DBUS_SYSTEM_BUS_ADDRESS")
        if let address, let defect = systemBusAddressDefect(address) {
            throw DBusError(name: DBusError.Names.badAddress, message: defect)
        }
        return try DBusConnection(address: address ?? "unix:path=/run/dbus/system_bus_socket")
    }

    /// Why `address`, the value of `DBUS_SYSTEM_BUS_ADDRESS`, is not used for the system bus, or nil when
    /// it is: only `unix:` addresses (every `;`-separated entry) are, as the system bus is a local socket.
    /// libdbus would run the program of a `unixexec:` entry, and reach the network for `tcp:` or `nonce-tcp:`;
    /// the environment of a root `dfu` (sudo -E, CI variables) is not trusted with either.
    public static func systemBusAddressDefect(_ address: String) -> String? {
        let entries = address.split(separator: ";", omittingEmptySubsequences: true)
        if entries.isEmpty { return "DBUS_SYSTEM_BUS_ADDRESS is empty; unset it or give a unix: address" }
        for entry in entries where !entry.hasPrefix("unix:") {
            let transport = entry.split(separator: ":", maxSplits: 1).first.map(String.init) ?? String(entry)
            let why = switch transport {
            case "unixexec": "'unixexec:' runs a program"
            case "tcp", "nonce-tcp": "'\(transport):' reaches the network"
            case "autolaunch", "launchd", "systemd": "'\(transport):' finds a session bus, not the system bus"
            default: "'\(transport.prefix(40))' is not a unix: address"
            }
            return "DBUS_SYSTEM_BUS_ADDRESS is not used: \(why); only unix: addresses (a local socket) are accepted"
        }
        return nil
    }

    /// Opens a private connection to the bus at `address` and registers with it.
    ///
    /// Blocking: until the bus has authenticated the connection and answered `Hello`.
    /// Throws a ``DBusError`` with code ``DBusError/Code/noServer`` when nothing listens there.
    public init(address: String, loop: EventLoop? = nil) throws(DBusError) {
        let chosen: EventLoop
        if let loop {
            chosen = loop
        } else {
            do throws(EventLoopError) {
                chosen = try EventLoop.shared()
            } catch {
                throw DBusError.failed("The event loop could not start: \(error)")
            }
        }
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
        guard let watched = try? FileDescriptor(rawValue: socket).duplicate() else {
            abandon()
            throw DBusError.failed("The bus socket could not be duplicated for the loop")
        }
        raw = connection
        watchedSocket = OwnedFileDescriptor(taking: watched.rawValue)
        self.loop = chosen
        uniqueName = BusName(unchecked: String(cString: namePointer))
        canPassFileDescriptors = dbus_connection_can_send_type(connection, TypeCode.unixFileDescriptor) != 0
        state = Mutex(ConnectionState())
        let (calls, callsContinuation) = AsyncStream.makeStream(of: IncomingCall.self)
        incomingCalls = callsContinuation
        try startPump()
        // Handlers run on the loop that read their calls, not on Swift's shared pool: a server in a busy
        // process (a test run, hundreds of ready tasks on two threads) answers as soon as its call arrives,
        // instead of after everything queued before it (a stand-in's answer once came after the caller's
        // 25 s timeout that way).
        Task(executorPreference: chosen) { [self] in
            await serveIncomingCalls(calls)
        }
    }

    /// Closes the connection: fails waiting calls with `Disconnected`, ends signal streams,
    /// takes the socket off the loop and releases it. Calling it again does nothing. Never waits
    /// for the loop, so it may be called on the loop's thread.
    public func close() {
        let closing = state.withLock { state -> ([ConnectionState.PendingCall], [ConnectionState.Subscription])? in
            guard state.phase != .closed else { return nil }
            state.phase = .closed
            state.stopWatching()
            watchedSocket.close()
            return state.takeAllWaiters()
        }
        guard let (calls, streams) = closing else { return }
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        finish(calls, streams, with: DBusError.disconnected("The connection was closed"))
    }

    /// Whether the connection can still be used.
    public var isOpen: Bool {
        state.withLock { $0.phase == .open }
    }

    // MARK: Sending

    /// Sends a message without waiting for any reply (signals, replies, `NO_REPLY_EXPECTED` calls).
    public func send(_ message: DBusMessage) throws(DBusError) {
        try send(templates.handle(for: message))
    }

    /// Sends `call` with `bytes` as its first argument and `NO_REPLY_EXPECTED`, as a copy of the call built once for
    /// their count (``DBusPacketCall``); queued in order with every other message, as ``send(_:)`` queues them.
    public func send(_ call: DBusPacketCall, bytes: [UInt8]) throws(DBusError) {
        try send(call.handle(bytes: bytes, expectsReply: false))
    }

    /// Queues `handle` under the lock, waiting for no reply.
    func send(_ handle: MessageHandle) throws(DBusError) {
        try state.withLock { (state) throws(DBusError) in
            _ = try sendLocked(handle, state: &state)
        }
    }

    /// Sends under the lock; returns the serial. Has the loop watch for room if bytes are left to write.
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
            state.watchForRoom(true)
        }
        return serial
    }

    /// Makes the deadline timer, a timer of the loop, fire by `deadline`; leaves it alone when it fires
    /// earlier already (firing finds nothing due and sets it for the earliest call left), so calls
    /// answered one after another do not reschedule it each. Called with `state` locked, which owns
    /// ``ConnectionState/timerDeadline``.
    func armDeadlineTimer(_ deadline: ContinuousClock.Instant, state: inout ConnectionState) {
        if let armed = state.timerDeadline, armed <= deadline { return }
        state.timerDeadline = deadline
        state.deadlineTimer?.cancel()
        state.deadlineTimer = loop.schedule(at: deadline) { [weak self] in self?.deadlinePassed() }
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
