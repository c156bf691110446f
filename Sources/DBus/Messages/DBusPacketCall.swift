internal import CDBus
import Synchronization

/// A method call sent again and again with other bytes as its first argument (an `ay`) and the same rest: a GATT
/// `WriteValue` of one packet after another (``DBusClient/send(_:bytes:)``).
///
/// Building a call with libdbus's iterators costs about 57,000 instructions for a `WriteValue` (it rewrites the
/// header's SIGNATURE field after every argument); a copy of a built one (`dbus_message_copy`: the header and body
/// bytes duplicated, the serial cleared, unlocked) about 1,400. So the call is built once for each count of bytes, up
/// to ``countsKept`` counts (an upload's packets have two: the full ones and each object's short last one), and every
/// send is a copy of that template with the bytes written over its array and its reply flag set as asked. Nothing
/// else in a message depends on a byte array's bytes (they are stored as they are, after the count), so the copy is
/// the call built with those bytes.
public final class DBusPacketCall: Sendable {
    public let destination: BusName?
    public let path: ObjectPath
    public let interface: InterfaceName?
    public let member: MemberName
    /// The arguments after the byte array.
    public let trailingArguments: [DBusValue]

    /// How many counts of bytes have a template at a time; the oldest goes first.
    static let countsKept = 4

    /// A built call, never sent: only copied, while the lock is held. Unchecked: its libdbus message is this
    /// object's alone, and no two threads touch it at once.
    private struct Template: @unchecked Sendable {
        let count: Int
        let handle: MessageHandle
    }

    private let templates = Mutex<[Template]>([])

    public init(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName, trailingArguments: [DBusValue]
    ) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.trailingArguments = trailingArguments
    }

    /// The call with `bytes`, as a message (what a client other than ``DBusConnection`` sends).
    public func message(bytes: [UInt8], expectsReply: Bool) -> DBusMessage {
        DBusMessage(
            type: .methodCall, destination: destination, path: path, interface: interface, member: member,
            arguments: [.bytes(bytes)] + trailingArguments, expectsReply: expectsReply)
    }

    /// How many counts of bytes have a template now.
    var templateCount: Int { templates.withLock { $0.count } }

    /// The libdbus message of the call with `bytes`: a copy of the template of their count, built first if there is
    /// none, with `bytes` written over its array.
    func handle(bytes: [UInt8], expectsReply: Bool) throws(DBusError) -> MessageHandle {
        let copy = try templates.withLock { (templates) throws(DBusError) -> MessageHandle in
            if let template = templates.first(where: { $0.count == bytes.count }) {
                guard let pointer = dbus_message_copy(template.handle.pointer) else {
                    throw DBusError.noMemory("Cannot copy a D-Bus message")
                }
                return MessageHandle(taking: pointer)
            }
            let built = try message(bytes: bytes, expectsReply: expectsReply).makeHandle()
            built.primeForCopies()
            guard let pointer = dbus_message_copy(built.pointer) else { return built }
            if templates.count == Self.countsKept { templates.removeFirst() }
            templates.append(Template(count: bytes.count, handle: built))
            return MessageHandle(taking: pointer)
        }
        guard Self.overwriteFirstByteArray(of: copy, with: bytes) else {
            throw DBusError.invalidArguments("The packet call's first argument is not a byte array")
        }
        dbus_message_set_no_reply(copy.pointer, expectsReply ? 0 : 1)
        return copy
    }

    /// Writes `bytes` over the bytes of the first argument of `copy`, an `ay` of the same count, where they lie in the
    /// copy's body (`dbus_message_iter_get_fixed_array` gives their address in it). The copy is this process's alone
    /// and not sent yet (`dbus_message_copy` makes it unlocked, serial 0). False when the copy has no such array.
    private static func overwriteFirstByteArray(of copy: MessageHandle, with bytes: [UInt8]) -> Bool {
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
        guard Int(count) == bytes.count else { return false }
        guard let start else { return bytes.isEmpty }
        bytes.withUnsafeBytes { source in
            guard let base = source.baseAddress else { return }
            UnsafeMutableRawPointer(mutating: start).copyMemory(from: base, byteCount: source.count)
        }
        return true
    }
}
