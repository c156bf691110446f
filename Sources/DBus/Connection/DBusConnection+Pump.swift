internal import CDBus
import IOLoop
import Synchronization

extension DBusConnection {
    /// Puts the socket on the loop. The watch's handler holds a strong reference to the connection
    /// until ``close()`` or a lost connection removes it.
    func startPump() throws(DBusError) {
        let watch: LoopWatch
        do throws(EventLoopError) {
            watch = try loop.watch(socketDescriptor, for: .readable) { [self] readiness in
                service(readiness)
            }
        } catch {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw DBusError.failed("The bus socket could not be watched: \(error)")
        }
        state.withLock { $0.watch = watch }
        // Messages may already sit in libdbus's queue (read during start-up), with nothing left in
        // the socket to wake the loop for them.
        loop.execute { [self] in service([]) }
    }

    /// One turn on the loop's thread, when the socket is ready or a deadline passed: read and write
    /// what the socket allows, handle every complete message, expire calls whose deadline passed.
    func service(_ readiness: Readiness) {
        let stillOpen = state.withLock { state in
            guard state.phase == .open else { return false }
            guard !readiness.isEmpty || state.watchesForRoom else { return true }
            return dbus_connection_read_write(raw, 0) != 0
        }
        while let message = popMessage() {
            handle(message)
        }
        let now = ContinuousClock.now
        let (phase, expired, connected) = state.withLock { state in
            var expired: [ConnectionState.PendingCall] = []
            guard state.phase == .open else { return (state.phase, expired, false) }
            for (serial, call) in state.pending where call.deadline <= now {
                state.pending.removeValue(forKey: serial)
                expired.append(call)
            }
            // The timer fires by the earliest pending call's deadline (and at most once more after the
            // last call was answered).
            if let earliest = state.pending.values.lazy.map(\.deadline).min() {
                armDeadlineTimer(earliest, state: &state)
            }
            state.watchForRoom(dbus_connection_has_messages_to_send(raw) != 0)
            return (state.phase, expired, stillOpen && dbus_connection_get_is_connected(raw) != 0)
        }
        for call in expired {
            call.continuation.resume(returning: .failure(DBusError.timedOut("No reply to \(call.what) in time")))
        }
        if phase == .open, !connected {
            connectionLost()
        }
    }

    /// The deadline timer fired (on the loop's thread).
    func deadlinePassed() {
        state.withLock { state in
            state.timerDeadline = nil
            state.deadlineTimer = nil
        }
        service([])
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
            state.stopWatching()
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
