internal import CDBus
import IOLoop
import Synchronization

extension DBusConnection {
    /// Puts the socket on the loop. The watch's handler holds a strong reference to the connection
    /// until ``close()`` or a lost connection removes it.
    func startPump() throws(DBusError) {
        let watch: LoopWatch
        do throws(EventLoopError) {
            watch = try loop.watch(watchedSocket.rawValue ?? -1, for: .readable) { [self] readiness in
                service(readiness)
            }
        } catch {
            watchedSocket.close()
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
        while let incoming = nextIncoming() {
            deliver(incoming)
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

    /// One incoming message, decoded, with the libdbus message it came in already released.
    private enum Incoming {
        /// The reply (or error) to a pending call.
        case reply(ConnectionState.PendingCall, Result<DBusMessage, DBusError>)
        case signal(DBusMessage)
        case call(DBusMessage)
        /// The bus said the connection is gone.
        case disconnected
        /// Nothing to deliver (a reply nobody waits for, an undecodable signal, a call already answered).
        case nothing
    }

    /// Pops and decodes the next complete message (`dbus_connection_pop_message`), nil when none is queued.
    ///
    /// The libdbus message is released when this returns, before anything is delivered: the file descriptors
    /// it carries (a reply to AcquireWrite or AcquireNotify) are closed by then, so when the caller resumes,
    /// the descriptor it received is the only one left open on its side, and closing it ends the socket at once.
    private func nextIncoming() -> Incoming? {
        let pointer = state.withLock { state in
            state.phase == .open ? dbus_connection_pop_message(raw) : nil
        }
        guard let pointer else { return nil }
        return decode(MessageHandle(taking: pointer))
    }

    /// The bus went away: fail everything waiting and stop.
    private func connectionLost() {
        let (calls, streams) = state.withLock {
            state -> ([ConnectionState.PendingCall], [ConnectionState.Subscription]) in
            guard state.phase == .open else { return ([], []) }
            state.phase = .disconnected
            state.stopWatching()
            watchedSocket.close()
            return state.takeAllWaiters()
        }
        finish(calls, streams, with: DBusError.disconnected("The connection to the bus was lost"))
    }

    /// Decodes one message by type.
    private func decode(_ handle: MessageHandle) -> Incoming {
        let pointer = handle.pointer
        switch dbus_message_get_type(pointer) {
        case DBusMessageType.methodReturn.rawValue, DBusMessageType.error.rawValue:
            let replySerial = dbus_message_get_reply_serial(pointer)
            guard let call = state.withLock({ $0.pending.removeValue(forKey: replySerial) }) else { return .nothing }
            do {
                let message = try DBusMessage(handle: handle)
                return .reply(call, message.error.map { .failure($0) } ?? .success(message))
            } catch {
                return .reply(call, .failure(error))
            }
        case DBusMessageType.signal.rawValue:
            if dbus_message_is_signal(pointer, "org.freedesktop.DBus.Local", "Disconnected") != 0 { return .disconnected }
            return (try? DBusMessage(handle: handle)).map(Incoming.signal) ?? .nothing
        case DBusMessageType.methodCall.rawValue:
            do {
                return .call(try DBusMessage(handle: handle))
            } catch {
                replyToUndecodable(handle, error: error)
                return .nothing
            }
        default:
            return .nothing
        }
    }

    /// Hands one decoded message to whoever waits for it.
    private func deliver(_ incoming: Incoming) {
        switch incoming {
        case .reply(let call, let result):
            call.continuation.resume(returning: result)
        case .signal(let message):
            let streams = state.withLock { state in
                followOwnerChange(message, state: &state)
                return state.subscriptions.values.filter { $0.rule.matches(message, owners: state.nameOwners) }
            }
            for stream in streams {
                stream.onDelivery?(message)
                stream.continuation.yield(message)
            }
        case .call(let message):
            dispatch(message)
        case .disconnected:
            connectionLost()
        case .nothing:
            break
        }
    }

    /// Answers a call whose body could not be decoded.
    private func replyToUndecodable(_ handle: MessageHandle, error: DBusError) {
        guard dbus_message_get_no_reply(handle.pointer) == 0,
            let reply = dbus_message_new_error(handle.pointer, DBusError.Names.invalidArgs, error.message)
        else { return }
        try? send(MessageHandle(taking: reply))
    }
}
