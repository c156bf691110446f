internal import CDBus
import Glibc
import Synchronization

extension DBusConnection {
    /// Starts the pump thread, which holds a strong reference to the connection until it ends.
    func startPump() throws(DBusError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let connection = Unmanaged<DBusConnection>.fromOpaque(context).takeRetainedValue()
                connection.runPump()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<DBusConnection>.fromOpaque(context).release()
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            Glibc.close(wakeReadDescriptor)
            Glibc.close(wakeWriteDescriptor)
            Glibc.close(deadlineTimerDescriptor)
            throw DBusError.failed("pthread_create failed with error \(created)")
        }
        state.withLock { $0.pumpThread = thread }
    }

    /// The I/O loop: poll the socket, the wake pipe and the deadline timer, read and write, handle
    /// messages, expire calls whose deadline passed. Ends when the connection is closed or lost.
    func runPump() {
        var descriptors = [
            pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeReadDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: deadlineTimerDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            // Messages may already sit in libdbus's queue (read during start-up or by the
            // last read_write), so handle them before sleeping.
            while let message = popMessage() {
                handle(message)
            }
            let now = ContinuousClock.now
            let (phase, expired, wantsWrite, connected) = state.withLock { state in
                var expired: [ConnectionState.PendingCall] = []
                if state.phase == .open {
                    for (serial, call) in state.pending where call.deadline <= now {
                        state.pending.removeValue(forKey: serial)
                        expired.append(call)
                    }
                    // The timer follows the earliest pending call (or rests): no tick while idle.
                    armDeadlineTimer(state.pending.values.map(\.deadline).min(), state: &state)
                }
                let isOpen = state.phase == .open
                let wantsWrite = isOpen && dbus_connection_has_messages_to_send(raw) != 0
                let connected = isOpen && dbus_connection_get_is_connected(raw) != 0
                return (state.phase, expired, wantsWrite, connected)
            }
            for call in expired {
                call.continuation.resume(returning: .failure(DBusError.timedOut("No reply to \(call.what) in time")))
            }
            guard phase == .open else { return }
            guard connected else {
                connectionLost()
                return
            }
            descriptors[0].events = Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0)
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            descriptors[2].revents = 0
            let ready = poll(&descriptors, 3, -1)
            if ready < 0 && errno != EINTR {
                connectionLost()
                return
            }
            if descriptors[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeReadDescriptor, &drain, drain.count) == drain.count {}
            }
            if descriptors[2].revents != 0 {
                // Expirations counted since the last read; the loop above expires the calls.
                var expirations: UInt64 = 0
                _ = Glibc.read(deadlineTimerDescriptor, &expirations, MemoryLayout<UInt64>.size)
                state.withLock { $0.timerDeadline = nil }
            }
            if descriptors[0].revents != 0 || wantsWrite {
                let stillOpen = state.withLock { state in
                    state.phase == .open ? dbus_connection_read_write(raw, 0) != 0 : false
                }
                if !stillOpen {
                    while let message = popMessage() {
                        handle(message)
                    }
                }
            }
        }
    }

    /// Pops one complete incoming message, if any (`dbus_connection_pop_message`).
    private func popMessage() -> MessageHandle? {
        let pointer = state.withLock { state in
            state.phase == .open ? dbus_connection_pop_message(raw) : nil
        }
        return pointer.map(MessageHandle.init(taking:))
    }

    /// The bus went away: fail everything waiting and stop.
    private func connectionLost() {
        let (calls, streams) = state.withLock {
            state -> ([ConnectionState.PendingCall], [ConnectionState.Subscription]) in
            guard state.phase == .open else { return ([], []) }
            state.phase = .disconnected
            return state.takeAllWaiters()
        }
        finish(calls, streams, with: DBusError.disconnected("The connection to the bus was lost"))
    }

    /// Dispatches one incoming message by type.
    private func handle(_ handle: MessageHandle) {
        let pointer = handle.pointer
        let type = dbus_message_get_type(pointer)
        switch type {
        case DBusMessageType.methodReturn.rawValue, DBusMessageType.error.rawValue:
            let replySerial = dbus_message_get_reply_serial(pointer)
            guard let call = state.withLock({ $0.pending.removeValue(forKey: replySerial) }) else { return }
            do {
                let message = try DBusMessage(handle: handle)
                if let error = message.error {
                    call.continuation.resume(returning: .failure(error))
                } else {
                    call.continuation.resume(returning: .success(message))
                }
            } catch {
                call.continuation.resume(returning: .failure(error))
            }
        case DBusMessageType.signal.rawValue:
            if dbus_message_is_signal(pointer, "org.freedesktop.DBus.Local", "Disconnected") != 0 {
                connectionLost()
                return
            }
            guard let message = try? DBusMessage(handle: handle) else { return }
            let streams = state.withLock { state in
                followOwnerChange(message, state: &state)
                return state.subscriptions.values.filter { $0.rule.matches(message, owners: state.nameOwners) }
                    .map(\.continuation)
            }
            for stream in streams {
                stream.yield(message)
            }
        case DBusMessageType.methodCall.rawValue:
            let message: DBusMessage
            do {
                message = try DBusMessage(handle: handle)
            } catch {
                replyToUndecodable(handle, error: error)
                return
            }
            dispatch(message)
        default:
            return
        }
    }

    /// Answers a call whose body could not be decoded.
    private func replyToUndecodable(_ handle: MessageHandle, error: DBusError) {
        guard dbus_message_get_no_reply(handle.pointer) == 0,
            let reply = dbus_message_new_error(handle.pointer, DBusError.Names.invalidArgs, error.message)
        else { return }
        let replyHandle = MessageHandle(taking: reply)
        try? state.withLock { (state) throws(DBusError) in
            _ = try sendLocked(replyHandle, state: &state)
        }
    }
}
