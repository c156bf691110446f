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
/// remembered, among the last ``recentCapacity``), so small calls that differ each time (the short last packet of
/// each object) cost a hash each and never push the repeated calls out. Only calls worth
/// keeping are considered: a method call with no serial, no sender and a body of at most ``bodyLimit`` bytes of
/// values and no file descriptor (a descriptor is not a value to compare, and a copy would duplicate it).
///
/// Packets are reused by their shape: a call whose first argument is a byte array and whose other arguments are
/// small (a `WriteValue` of one packet with its options) is kept the same way, and a later call that differs from it
/// only in those bytes, of the same count, is sent as a copy with its bytes written over the kept ones. An upload's
/// packets are all the same shape but the last of each object, so nearly every packet is a copy (about 2,000
/// instructions, against 57,000 built).
final class MessageTemplates: Sendable {
    /// How many call templates are kept; the oldest goes first.
    static let capacity = 8
    /// How many packet shapes are kept; the oldest goes first.
    static let shapeCapacity = 4
    /// How many calls sent once are remembered (by hash), in each pool, to be kept when sent again.
    static let recentCapacity = 16
    /// The largest body, in bytes of values (strings and byte arrays counted by length), a template may have: a
    /// request's size. A GATT write of up to 16 bytes with its one option fits (a control point's request: 1 to 6
    /// bytes, 17 to 22 here); the smallest full packet does not (20 bytes on a 23-byte MTU: 36), so a data stream is
    /// reused by its shape (below), not compared whole.
    static let bodyLimit = 32

    /// A kept call. Unchecked: its handle is a libdbus message no other code holds, only read (copied from) while
    /// the lock is held, and never sent, so no two threads ever touch it at once.
    private struct Template: @unchecked Sendable {
        let hash: Int
        let message: DBusMessage
        let handle: MessageHandle
    }

    /// The templates of one kind, and the hashes of calls of that kind sent once lately.
    private struct Pool {
        let capacity: Int
        var templates: [Template] = []
        var recent: [Int] = []

        /// A copy of the template `matches` accepts, or what to do without one; remembers `hash` when first seen.
        mutating func plan(hash: Int, matches: (DBusMessage) -> Bool) -> Plan {
            if let template = templates.first(where: { $0.hash == hash && matches($0.message) }) {
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

        /// Keeps `template` unless one `matches` already, dropping the oldest when full.
        mutating func keep(_ template: Template, matches: (DBusMessage) -> Bool) {
            guard !templates.contains(where: { $0.hash == template.hash && matches($0.message) }) else { return }
            if templates.count == capacity { templates.removeFirst() }
            templates.append(template)
        }
    }

    /// The two pools: whole calls, and packets by their shape.
    private struct Kept {
        var calls = Pool(capacity: MessageTemplates.capacity)
        var packets = Pool(capacity: MessageTemplates.shapeCapacity)

        /// Runs `body` on the pool of `kind`.
        mutating func withPool<Result>(_ kind: PoolKind, _ body: (inout Pool) -> Result) -> Result {
            switch kind {
            case .calls: body(&calls)
            case .packets: body(&packets)
            }
        }
    }

    /// Which pool a call is reused from.
    private enum PoolKind {
        case calls
        case packets
    }

    /// What to do with a call that qualifies.
    private enum Plan {
        case copied(OpaquePointer?)
        case buildAndKeep
        case build
    }

    private let kept = Mutex(Kept())

    /// The libdbus message to send for `message`: a copy of a kept template when `message` equals one, or has the
    /// shape of a kept packet (then with `message`'s bytes written over the copy's), else newly built (and kept as a
    /// template when it qualifies and was sent lately).
    func handle(for message: DBusMessage) throws(DBusError) -> MessageHandle {
        if Self.qualifies(message) {
            return try reuse(message, hash: message.hashValue, pool: .calls, payload: nil) { $0 == message }
        }
        if let payload = Self.packetPayload(of: message) {
            let hash = Self.shapeHash(of: message, payloadLength: payload.count)
            return try reuse(message, hash: hash, pool: .packets, payload: payload) { Self.sameShape($0, message) }
        }
        return try message.makeHandle()
    }

    /// Copies a kept template of `pool` that `matches`, writing `payload` over its first byte array when given, or
    /// builds `message` (keeping it when it was seen lately).
    private func reuse(
        _ message: DBusMessage, hash: Int, pool: PoolKind, payload: [UInt8]?,
        matches: @Sendable (DBusMessage) -> Bool
    ) throws(DBusError) -> MessageHandle {
        let plan = kept.withLock { $0.withPool(pool) { $0.plan(hash: hash, matches: matches) } }
        switch plan {
        case .copied(let pointer):
            guard let pointer else { throw DBusError.noMemory("Cannot copy a D-Bus message") }
            let copy = MessageHandle(taking: pointer)
            if let payload, !Self.overwriteFirstByteArray(of: copy, with: payload) {
                return try message.makeHandle()
            }
            return copy
        case .build:
            return try message.makeHandle()
        case .buildAndKeep:
            let built = try message.makeHandle()
            guard let copy = dbus_message_copy(built.pointer) else { return built }
            // Building leaves the header's field cache stale (every field set invalidates it); reading the signature
            // rebuilds it, and copies inherit it (`_dbus_header_copy` copies the cache with the bytes). Without this,
            // reading a copy's arguments rescans its header each time: about 6,000 instructions per packet.
            _ = dbus_message_get_signature(copy)
            let template = Template(hash: hash, message: message, handle: MessageHandle(taking: copy))
            kept.withLock { $0.withPool(pool) { $0.keep(template, matches: matches) } }
            return built
        }
    }

    /// How many call templates are kept now.
    var count: Int { kept.withLock { $0.calls.templates.count } }

    /// How many packet shapes are kept now.
    var shapeCount: Int { kept.withLock { $0.packets.templates.count } }

    /// Whether a template equal to `message` is kept now.
    func keeps(_ message: DBusMessage) -> Bool {
        kept.withLock { $0.calls.templates.contains { $0.message == message } }
    }

    /// Whether `message` may be kept as a template and answered from one.
    static func qualifies(_ message: DBusMessage) -> Bool {
        guard isPlainCall(message) else { return false }
        var budget = bodyLimit
        return message.arguments.allSatisfy { fits($0, within: &budget) }
    }

    /// The bytes of a packet: a call that does not qualify whole, whose first argument is a byte array
    /// (``DBusValue/bytes(_:)``, not empty) and whose other arguments fit in ``bodyLimit`` with no descriptor. Such a
    /// call is reused by its shape: everything but those bytes, and their count.
    static func packetPayload(of message: DBusMessage) -> [UInt8]? {
        guard isPlainCall(message), case .bytes(let payload) = message.arguments.first, !payload.isEmpty else {
            return nil
        }
        var budget = bodyLimit
        guard message.arguments.dropFirst().allSatisfy({ fits($0, within: &budget) }) else { return nil }
        return payload
    }

    /// A method call with no serial, sender or reply serial: what a client sends.
    private static func isPlainCall(_ message: DBusMessage) -> Bool {
        message.type == .methodCall && message.serial == 0 && message.sender == nil && message.replySerial == nil
    }

    /// The hash of a packet's shape, from its numbers alone: the count of its first byte array and of its
    /// arguments, and the reply flag. Packets that differ elsewhere (another characteristic, other options) share it
    /// and are told apart by ``sameShape(_:_:)``, which compares the kept few in full; hashing the object path and the
    /// options for every packet cost more than the rest of its reuse.
    private static func shapeHash(of message: DBusMessage, payloadLength: Int) -> Int {
        var hasher = Hasher()
        hasher.combine(payloadLength)
        hasher.combine(message.arguments.count)
        hasher.combine(message.expectsReply)
        return hasher.finalize()
    }

    /// Whether two packets differ at most in the bytes of their first byte arrays, which have the same count.
    private static func sameShape(_ kept: DBusMessage, _ message: DBusMessage) -> Bool {
        guard case .bytes(let keptBytes) = kept.arguments.first, case .bytes(let bytes) = message.arguments.first else {
            return false
        }
        return keptBytes.count == bytes.count && kept.type == message.type && kept.destination == message.destination
            && kept.path == message.path && kept.interface == message.interface && kept.member == message.member
            && kept.expectsReply == message.expectsReply && kept.errorName == message.errorName
            && kept.arguments.count == message.arguments.count
            && kept.arguments.dropFirst().elementsEqual(message.arguments.dropFirst())
    }

    /// Writes `payload` over the bytes of the first argument of `copy`, an `ay` of the same count, where they lie in
    /// the copy's body (`dbus_message_iter_get_fixed_array` gives their address in it). The copy is this process's
    /// alone and not sent yet (`dbus_message_copy` makes it unlocked, serial 0), and a byte array's bytes are stored
    /// as they are, so nothing else in the message depends on them. False when the copy has no such array.
    private static func overwriteFirstByteArray(of copy: MessageHandle, with payload: [UInt8]) -> Bool {
        var arguments = DBusMessageIter()
        guard dbus_message_iter_init(copy.pointer, &arguments) != 0,
            dbus_message_iter_get_arg_type(&arguments) == TypeCode.array,
            dbus_message_iter_get_element_type(&arguments) == TypeCode.byte
        else { return false }
        var elements = DBusMessageIter()
        dbus_message_iter_recurse(&arguments, &elements)
        var start: UnsafePointer<UInt8>?
        var count: Int32 = 0
        withUnsafeMutablePointer(to: &start) { dbus_message_iter_get_fixed_array(&elements, $0, &count) }
        guard let start, Int(count) == payload.count else { return false }
        payload.withUnsafeBytes { bytes in
            guard let source = bytes.baseAddress else { return }
            UnsafeMutableRawPointer(mutating: start).copyMemory(from: source, byteCount: bytes.count)
        }
        return true
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
