internal import CDBus
import Synchronization

/// The last few small method calls a connection built, kept as templates: a call equal to one of them is sent as a
/// copy of it (`dbus_message_copy`: the header and body bytes duplicated, the serial cleared, unlocked) instead of
/// being built again.
///
/// Building a call with libdbus's iterators rewrites the header's SIGNATURE field after every top-level argument
/// (`_dbus_message_iter_close_signature` → `_dbus_header_set_field_basic`): a `GattCharacteristic1.WriteValue` costs
/// about 57,000 instructions to build, a copy about 1,400 (measured with callgrind, libdbus 1.14). An upload repeats
/// the same few control-point calls (select, create, checksum, execute) for every object, so they are built once.
///
/// Only calls worth keeping are kept: a method call with no serial, no sender and a body of at most
/// ``bodyLimit`` bytes of values and no file descriptor (a descriptor is not a value to compare, and a copy would
/// duplicate it). Packets are not kept: each carries different bytes.
final class MessageTemplates: Sendable {
    /// How many templates are kept; the oldest goes first.
    static let capacity = 8
    /// The largest body, in bytes of values (strings and byte arrays counted by length), a template may have.
    static let bodyLimit = 64

    /// A kept call. Unchecked: its handle is a libdbus message no other code holds, only read (copied from) while
    /// the lock is held, and never sent, so no two threads ever touch it at once.
    private struct Template: @unchecked Sendable {
        let message: DBusMessage
        let handle: MessageHandle
    }

    private let templates = Mutex<[Template]>([])

    /// The libdbus message to send for `message`: a copy of a kept template when `message` equals one, else newly
    /// built (and kept as a template when it qualifies).
    func handle(for message: DBusMessage) throws(DBusError) -> MessageHandle {
        guard Self.qualifies(message) else { return try message.makeHandle() }
        let copied: OpaquePointer?? = templates.withLock { templates in
            guard let template = templates.first(where: { $0.message == message }) else { return .none }
            return .some(dbus_message_copy(template.handle.pointer))
        }
        switch copied {
        case .some(.some(let pointer)):
            return MessageHandle(taking: pointer)
        case .some(.none):
            throw DBusError.noMemory("Cannot copy a D-Bus message")
        case .none:
            let built = try message.makeHandle()
            guard let kept = dbus_message_copy(built.pointer) else { return built }
            templates.withLock { templates in
                guard !templates.contains(where: { $0.message == message }) else { return }
                if templates.count == Self.capacity { templates.removeFirst() }
                templates.append(Template(message: message, handle: MessageHandle(taking: kept)))
            }
            return built
        }
    }

    /// How many templates are kept now.
    var count: Int { templates.withLock { $0.count } }

    /// Whether a template equal to `message` is kept now.
    func keeps(_ message: DBusMessage) -> Bool { templates.withLock { $0.contains { $0.message == message } } }

    /// Whether `message` may be kept as a template and answered from one.
    static func qualifies(_ message: DBusMessage) -> Bool {
        guard message.type == .methodCall, message.serial == 0, message.sender == nil, message.replySerial == nil
        else { return false }
        var budget = bodyLimit
        return message.arguments.allSatisfy { fits($0, within: &budget) }
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
