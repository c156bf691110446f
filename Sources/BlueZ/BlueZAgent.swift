import DBus
import Synchronization
import SystemSupport

/// A pairing agent (`org.bluez.Agent1`) exported on a ``BlueZClient``'s own bus connection and
/// registered with bluetoothd, which asks it while a pairing needs the user: a passkey to type
/// (RequestPasskey), a pairing to accept without one (RequestAuthorization, RequestConfirmation).
///
/// bluetoothd 5.66 asks the agent of the connection that called `Device1.Pair` (`src/device.c`
/// `pair_device`, `agent_get(sender)`; `new_auth` then uses the bonding's agent) and uses its
/// capability for the pairing; pairings it starts itself (raising the link's security after an
/// ATT error 0x05 or 0x0F, `src/shared/att.c` `change_security`) go to the default agent, which a
/// newly registered agent becomes when the host has none (`src/agent.c` `agent_create`). Without
/// any agent a pairing that asks for confirmation is refused ("No agent available for request type").
///
/// The handlers never block the connection's loop: a passkey request waits for ``Answers/passkey``
/// in its own task, and `Cancel` (bluetoothd gave up: the pairing timed out or failed) or
/// ``unregister()`` ends that wait with `org.bluez.Error.Canceled`. `Release` (bluetoothd dropped the
/// agent, e.g. when it stops) is answered and remembered.
public final class BlueZAgent: Sendable {
    /// The input and output the agent claims, which decides the pairing method (BlueZ `doc/agent-api.txt`).
    public enum Capability: String, Sendable, Hashable {
        /// Can type a passkey: with a device that shows one, passkey entry (an authenticated pairing).
        case keyboardOnly = "KeyboardOnly"
        /// Neither: Just Works only.
        case noInputNoOutput = "NoInputNoOutput"
    }

    /// A question bluetoothd asked, as recorded in ``requests``.
    public enum Request: Sendable, Hashable {
        /// RequestPasskey: the passkey the device shows.
        case passkey
        /// RequestConfirmation: does the device show this passkey.
        case confirmation(UInt32)
        /// RequestAuthorization: accept a pairing without a passkey (Just Works).
        case authorization
        /// DisplayPasskey: show this passkey for the device's user to type.
        case displayPasskey(UInt32)
        /// RequestPinCode or DisplayPinCode (BR/EDR only): refused.
        case pinCode
        /// AuthorizeService (an incoming BR/EDR profile connection): refused.
        case authorizeService(String)
    }

    /// How the owner answers; each gets the device object the question is about.
    public struct Answers: Sendable {
        /// The passkey to give, nil to refuse. May wait (a prompt); cancelled when bluetoothd cancels.
        public var passkey: @Sendable (_ device: BlueZPath) async -> UInt32?
        /// Whether to accept a pairing without a passkey to type; `passkey` is the one shown for a confirmation.
        public var accepts: @Sendable (_ device: BlueZPath, _ passkey: UInt32?) async -> Bool

        /// Makes answers.
        public init(
            passkey: @escaping @Sendable (_ device: BlueZPath) async -> UInt32?,
            accepts: @escaping @Sendable (_ device: BlueZPath, _ passkey: UInt32?) async -> Bool
        ) {
            self.passkey = passkey
            self.accepts = accepts
        }
    }

    private struct State: ~Copyable {
        var exported = false
        var registered = false
        var released = false
        var requests: [Request] = []
        /// The passkey request waiting for its answer.
        var pending: (identifier: Int, continuation: CheckedContinuation<UInt32?, Never>, task: Task<Void, Never>?)?
        var nextIdentifier = 0
        /// bluetoothd's unique name when the agent was registered: the only caller it answers.
        var bluetoothd: BusName?
    }

    /// Where the agent object is exported (unique in this process).
    public let path: BlueZPath
    /// The capability it registers with.
    public let capability: Capability
    private let client: BlueZClient
    private let connection: DBusConnection
    private let answers: Answers
    private let state = Mutex(State())
    private static let count = Atomic<Int>(0)

    /// Prepares an agent on `client`'s connection; nothing is exported until ``register()``. Throws
    /// ``BlueZError/notSupported(_:)`` when the client's bus cannot export objects.
    public init(client: BlueZClient, capability: Capability, answers: Answers) throws(BlueZError) {
        guard let connection = client.bus as? DBusConnection else {
            throw .notSupported("this bus connection cannot export a pairing agent")
        }
        let number = Self.count.add(1, ordering: .relaxed).newValue
        guard let path = BlueZPath("/org/dfu/agent\(CurrentProcess.id)_\(number)") else {
            throw .unexpectedReply("no valid object path for the pairing agent")
        }
        self.path = path
        self.capability = capability
        self.client = client
        self.connection = connection
        self.answers = answers
    }

    /// Whether the agent is registered with bluetoothd now.
    public var isRegistered: Bool { state.withLock { $0.registered && !$0.released } }
    /// Whether bluetoothd released the agent (Release).
    public var wasReleased: Bool { state.withLock { $0.released } }
    /// What bluetoothd asked so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Exports the agent and registers it (`AgentManager1.RegisterAgent`); unexports it again when
    /// bluetoothd refuses (e.g. `AlreadyExists`: this connection has an agent already).
    public func register() async throws(BlueZError) {
        do {
            // Any client on the bus may call an exported object; only bluetoothd's questions are
            // answered (a passkey given to another caller would be given away).
            let owner = try await connection.nameOwner(of: try BusName(BlueZInterfaces.service))
            state.withLock { $0.bluetoothd = owner }
            try connection.export([try interface()], at: path.objectPath)
        } catch {
            throw BlueZError(error)
        }
        state.withLock { $0.exported = true }
        do {
            try await client.registerAgent(path, capability: capability.rawValue)
        } catch {
            unexport()
            throw error
        }
        state.withLock { $0.registered = true }
    }

    /// Unregisters (unless bluetoothd released it or is gone: errors are ignored), ends a waiting
    /// passkey request as cancelled and unexports the object. Idempotent.
    public func unregister() async {
        let registered = state.withLock { state in
            defer { state.registered = false }
            return state.registered && !state.released
        }
        if registered { try? await client.unregisterAgent(path) }
        finishPending(nil)
        unexport()
    }

    private func unexport() {
        let exported = state.withLock { state in
            defer { state.exported = false }
            return state.exported
        }
        if exported { try? connection.unexport(at: path.objectPath) }
    }

    private func record(_ request: Request) {
        state.withLock { $0.requests.append(request) }
    }

    // MARK: The exported interface

    private static func rejected(_ reason: String) -> DBusError {
        DBusError(name: "org.bluez.Error.Rejected", message: reason)
    }

    private func interface() throws(DBusError) -> DBusInterface {
        let device = DBusArgument("device", "o")
        let passkey = DBusArgument("passkey", "u")
        return DBusInterface(
            try InterfaceName(BlueZInterfaces.agent),
            methods: [
                DBusMethod(try MemberName("Release")) { [weak self] message in
                    try self?.checkCaller(message)
                    self?.state.withLock { $0.released = true }
                    self?.finishPending(nil)
                    return []
                },
                DBusMethod(try MemberName("Cancel")) { [weak self] message in
                    try self?.checkCaller(message)
                    self?.finishPending(nil)
                    return []
                },
                // Concurrent: while it waits for a person, Cancel must get through.
                DBusMethod(try MemberName("RequestPasskey"), inputs: [device], outputs: [passkey], runsConcurrently: true) {
                    [weak self] message in
                    try self?.checkCaller(message)
                    guard let self, let object = Self.device(in: message) else { throw Self.rejected("no device") }
                    record(.passkey)
                    guard let value = await askPasskey(for: object) else {
                        throw DBusError(name: "org.bluez.Error.Canceled", message: "no passkey")
                    }
                    return [.uint32(value)]
                },
                DBusMethod(try MemberName("RequestConfirmation"), inputs: [device, passkey]) { [weak self] message in
                    try self?.checkCaller(message)
                    guard let self, let object = Self.device(in: message) else { throw Self.rejected("no device") }
                    let shown = message.arguments.count > 1 ? message.arguments[1].integerValue.map { UInt32(truncatingIfNeeded: $0) } : nil
                    record(.confirmation(shown ?? 0))
                    guard await answers.accepts(object, shown) else { throw Self.rejected("the passkey does not match") }
                    return []
                },
                DBusMethod(try MemberName("RequestAuthorization"), inputs: [device]) { [weak self] message in
                    try self?.checkCaller(message)
                    guard let self, let object = Self.device(in: message) else { throw Self.rejected("no device") }
                    record(.authorization)
                    guard await answers.accepts(object, nil) else { throw Self.rejected("not a device being updated") }
                    return []
                },
                DBusMethod(
                    try MemberName("DisplayPasskey"), inputs: [device, passkey, DBusArgument("entered", "q")]
                ) { [weak self] message in
                    try self?.checkCaller(message)
                    let shown = message.arguments.count > 1 ? message.arguments[1].integerValue : nil
                    self?.record(.displayPasskey(UInt32(truncatingIfNeeded: shown ?? 0)))
                    return []
                },
                DBusMethod(try MemberName("RequestPinCode"), inputs: [device], outputs: [DBusArgument("pincode", "s")]) {
                    [weak self] message in
                    try self?.checkCaller(message)
                    self?.record(.pinCode)
                    throw Self.rejected("no PIN code (Bluetooth LE pairs with a passkey)")
                },
                DBusMethod(try MemberName("DisplayPinCode"), inputs: [device, DBusArgument("pincode", "s")]) { [weak self] message in
                    try self?.checkCaller(message)
                    self?.record(.pinCode)
                    throw Self.rejected("no PIN code (Bluetooth LE pairs with a passkey)")
                },
                DBusMethod(try MemberName("AuthorizeService"), inputs: [device, DBusArgument("uuid", "s")]) { [weak self] message in
                    try self?.checkCaller(message)
                    self?.record(.authorizeService(message.arguments.last?.stringValue ?? ""))
                    throw Self.rejected("not authorising services")
                },
            ])
    }

    /// Refuses a call that does not come from bluetoothd (``register()`` noted its unique name).
    private func checkCaller(_ message: DBusMessage) throws(DBusError) {
        let bluetoothd = state.withLock { $0.bluetoothd }
        guard let sender = message.sender, sender == bluetoothd else {
            throw DBusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "only bluetoothd may call this agent")
        }
    }

    private static func device(in message: DBusMessage) -> BlueZPath? {
        message.arguments.first?.objectPathValue.map(BlueZPath.init)
    }

    /// Waits for ``Answers/passkey`` in a task of its own; a Cancel, a Release or ``unregister()``
    /// ends the wait with nil (and cancels the task).
    private func askPasskey(for device: BlueZPath) async -> UInt32? {
        let ask = answers.passkey
        return await withCheckedContinuation { (continuation: CheckedContinuation<UInt32?, Never>) in
            let (identifier, displaced) = state.withLock { state in
                state.nextIdentifier += 1
                let displaced = state.pending
                state.pending = (state.nextIdentifier, continuation, nil)
                return (state.nextIdentifier, displaced)
            }
            // bluetoothd asks one thing at a time; an older question still waiting is over.
            displaced?.task?.cancel()
            displaced?.continuation.resume(returning: nil)
            let task = Task { [weak self] in
                let value = await ask(device)
                self?.finishPending(value, identifier: identifier)
            }
            let finished = state.withLock { state in
                guard state.pending?.identifier == identifier else { return true }
                state.pending?.task = task
                return false
            }
            if finished { task.cancel() }
        }
    }

    /// Answers the waiting passkey request (only `identifier`'s, when given) with `value`.
    private func finishPending(_ value: UInt32?, identifier: Int? = nil) {
        let pending = state.withLock { state -> (identifier: Int, continuation: CheckedContinuation<UInt32?, Never>, task: Task<Void, Never>?)? in
            guard let pending = state.pending, identifier == nil || pending.identifier == identifier else { return nil }
            state.pending = nil
            return pending
        }
        guard let pending else { return }
        if identifier == nil { pending.task?.cancel() }
        pending.continuation.resume(returning: value)
    }
}
