internal import CDBus
import Synchronization

/// The small method calls a connection sends again and again, kept as templates: a call equal to one of them is sent
/// as a copy of it (`dbus_message_copy`: the header and body bytes duplicated, the serial cleared, unlocked) instead of
/// being built again.
///
/// Building a call with libdbus's iterators rewrites the header's SIGNATURE field after every top-level argument
/// (`_dbus_message_iter_close_signature` → `_dbus_header_set_field_basic`): a `GattCharacteristic1.WriteValue` costs
/// about 57,000 instructions to build, a copy about 1,400 (measured with callgrind, libdbus 1.14). An upload repeats
/// the same few control-point calls (select, create, checksum, execute) for every object, so they are built twice at
/// most.
///
/// Only calls that repeat are kept: a call is kept the second time it is sent (the first time only its hash is
/// remembered, among the last ``recentCapacity``), so small calls that differ each time cost a hash each and never
/// push the repeated calls out. Only calls worth keeping are considered: a method call with no serial, no sender and a
/// body of at most ``bodyLimit`` bytes of values and no file descriptor (a descriptor is not a value to compare, and a
/// copy would duplicate it). Packets, calls that differ each time only in their bytes, are ``DBusPacketCall``s.
final class MessageTemplates: Sendable {
    /// How many call templates are kept; the oldest goes first.
    static let capacity = 8
    /// How many calls sent once are remembered (by hash), to be kept when sent again.
    static let recentCapacity = 16
    /// The largest body, in bytes of values (strings and byte arrays counted by length), a template may have: a
    /// request's size. A GATT write of up to 16 bytes with its one option fits (a control point's request: 1 to 6
    /// bytes, 17 to 22 here).
    static let bodyLimit = 32

    /// A kept call. Unchecked: its handle is a libdbus message no other code holds, only read (copied from) while
    /// the lock is held, and never sent, so no two threads ever touch it at once.
    private struct Template: @unchecked Sendable {
        let hash: Int
        let message: DBusMessage
        let handle: MessageHandle
    }

    /// The templates, and the hashes of calls sent once lately.
    private struct Pool {
        let capacity: Int
        var templates: [Template] = []
        var recent: [Int] = []

        /// A copy of the template equal to `message`, or what to do without one; remembers `hash` when first seen.
        mutating func plan(hash: Int, message: DBusMessage) -> Plan {
            if let template = templates.first(where: { $0.hash == hash && $0.message == message }) {
                return .copied(dbus_message_copy(template.handle.pointer))
            }
            if let index = recent.firstIndex(of: hash) {
                recent.remove(at: index)
                return .buildAndKeep
            }
            if recent.count == MessageTemplates.recentCapacity { recent.removeFirst() }
            recent.append(hash)
            return .build
        }

        /// Keeps `template` unless an equal one is kept already, dropping the oldest when full.
        mutating func keep(_ template: Template) {
            guard !templates.contains(where: { $0.hash == template.hash && $0.message == template.message }) else { return }
            if templates.count == capacity { templates.removeFirst() }
            templates.append(template)
        }
    }

    /// What to do with a call that qualifies.
    private enum Plan {
        case copied(OpaquePointer?)
        case buildAndKeep
        case build
    }

    private let kept = Mutex(Pool(capacity: MessageTemplates.capacity))

    /// The libdbus message to send for `message`: a copy of a kept template when `message` equals one, else newly built
    /// (and kept as a template when it qualifies and was sent lately).
    func handle(for message: DBusMessage) throws(DBusError) -> MessageHandle {
        guard Self.qualifies(message) else { return try message.makeHandle() }
        let hash = message.hashValue
        switch kept.withLock({ $0.plan(hash: hash, message: message) }) {
        case .copied(let pointer):
            guard let pointer else { throw DBusError.noMemory("Cannot copy a D-Bus message") }
            return MessageHandle(taking: pointer)
        case .build:
            return try message.makeHandle()
        case .buildAndKeep:
            let built = try message.makeHandle()
            guard let copy = dbus_message_copy(built.pointer) else { return built }
            let template = Template(hash: hash, message: message, handle: MessageHandle(taking: copy))
            template.handle.primeForCopies()
            kept.withLock { $0.keep(template) }
            return built
        }
    }

    /// How many call templates are kept now.
    var count: Int { kept.withLock { $0.templates.count } }

    /// Whether a template equal to `message` is kept now.
    func keeps(_ message: DBusMessage) -> Bool {
        kept.withLock { $0.templates.contains { $0.message == message } }
    }

    /// Whether `message` may be kept as a template and answered from one.
    static func qualifies(_ message: DBusMessage) -> Bool {
        guard isPlainCall(message) else { return false }
        var budget = bodyLimit
        return message.arguments.allSatisfy { fits($0, within: &budget) }
    }

    /// A method call with no serial, sender or reply serial: what a client sends.
    private static func isPlainCall(_ message: DBusMessage) -> Bool {
        message.type == .methodCall && message.serial == 0 && message.sender == nil && message.replySerial == nil
    }

    /// Whether `value` fits in `budget` bytes (taken from it), holding no file descriptor.
    private static func fits(_ value: DBusValue, within budget: inout Int) -> Bool {
        switch value {
        case .unixFileDescriptor:
            return false
        case .string(let text):
            budget -= text.utf8.count
        case .objectPath(let path):
            budget -= path.rawValue.utf8.count
        case .signature(let signature):
            budget -= signature.rawValue.utf8.count
        case .bytes(let bytes):
            budget -= bytes.count
        case .array(_, let elements), .structure(let elements):
            budget -= 4
            for element in elements where !fits(element, within: &budget) { return false }
        case .dictionary(_, _, let entries):
            budget -= 4
            for entry in entries where !fits(entry.key, within: &budget) || !fits(entry.value, within: &budget) {
                return false
            }
        case .variant(let inner):
            budget -= 1
            return fits(inner, within: &budget)
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            budget -= 8
        }
        return budget >= 0
    }
}
