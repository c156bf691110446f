internal import CDBus

/// A D-Bus message as plain Swift values: header fields plus the decoded arguments.
///
/// Received messages (signals, incoming method calls) are delivered in this form; the
/// libdbus message they came from is released as soon as they are decoded.
public struct DBusMessage: Sendable, Hashable {
    /// Method call, method return, error or signal.
    public var type: DBusMessageType
    /// The serial number the sender gave the message (0 until it is sent).
    public var serial: UInt32
    /// For replies: the serial of the call being answered.
    public var replySerial: UInt32?
    /// The unique name of the sender, filled in by the bus.
    public var sender: BusName?
    /// The bus name the message is addressed to, if any.
    public var destination: BusName?
    /// The object path (calls and signals).
    public var path: ObjectPath?
    /// The interface (calls and signals; optional for calls).
    public var interface: InterfaceName?
    /// The method or signal name.
    public var member: MemberName?
    /// For errors: the error name.
    public var errorName: ErrorName?
    /// The body.
    public var arguments: [DBusValue]
    /// For calls: whether the caller waits for a reply (the flag `NO_REPLY_EXPECTED` is clear).
    public var expectsReply: Bool

    /// Creates a message from its parts.
    public init(
        type: DBusMessageType,
        serial: UInt32 = 0,
        replySerial: UInt32? = nil,
        sender: BusName? = nil,
        destination: BusName? = nil,
        path: ObjectPath? = nil,
        interface: InterfaceName? = nil,
        member: MemberName? = nil,
        errorName: ErrorName? = nil,
        arguments: [DBusValue] = [],
        expectsReply: Bool = true
    ) {
        self.type = type
        self.serial = serial
        self.replySerial = replySerial
        self.sender = sender
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.arguments = arguments
        self.expectsReply = expectsReply
    }

    /// The signature of the body.
    public var signature: DBusSignature { DBusValue.signature(of: arguments) }

    /// The error carried by an error message, or `nil` for other messages.
    public var error: DBusError? {
        guard type == .error else { return nil }
        return DBusError(
            name: errorName?.rawValue ?? DBusError.Names.failed,
            message: arguments.first?.stringValue ?? "")
    }

    /// A method return answering `call`.
    public static func methodReturn(to call: DBusMessage, arguments: [DBusValue]) -> DBusMessage {
        DBusMessage(type: .methodReturn, replySerial: call.serial, destination: call.sender, arguments: arguments)
    }

    /// An error reply answering `call`; an error whose name is not a valid error name is sent as `Failed`.
    public static func errorReply(to call: DBusMessage, error: DBusError) -> DBusMessage {
        let name = (try? ErrorName(error.name)) ?? ErrorName(unchecked: DBusError.Names.failed)
        let text = error.message.utf8.contains(0) ? "" : error.message
        return DBusMessage(
            type: .error, replySerial: call.serial, destination: call.sender, errorName: name,
            arguments: [.string(text)])
    }

    /// Encodes the message in the D-Bus wire format (`dbus_message_marshal`), with no bus.
    ///
    /// File descriptors travel outside the bytes, so a message holding any cannot be marshalled.
    public func marshalled() throws(DBusError) -> [UInt8] {
        var copy = self
        if copy.serial == 0 { copy.serial = 1 }
        let handle = try copy.makeHandle()
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(handle.pointer, &buffer, &length) != 0, let buffer else {
            throw DBusError.noMemory("Cannot marshal the message")
        }
        defer { dbus_free(buffer) }
        return UnsafeRawBufferPointer(start: buffer, count: Int(length)).map { $0 }
    }

    /// Decodes a message from the D-Bus wire format (`dbus_message_demarshal`).
    public init(marshalled bytes: [UInt8]) throws(DBusError) {
        var pointer: OpaquePointer?
        try LibDBus.check(DBusError.invalidArguments("Malformed D-Bus message")) { cError in
            pointer = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.flatMap { base in
                    base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        dbus_message_demarshal($0, Int32(buffer.count), cError)
                    }
                }
            }
            return pointer != nil
        }
        guard let pointer else { throw DBusError.invalidArguments("Malformed D-Bus message") }
        let handle = MessageHandle(taking: pointer)
        try self.init(handle: handle)
    }

    /// Decodes a libdbus message; the caller keeps its reference.
    init(handle: MessageHandle) throws(DBusError) {
        let pointer = handle.pointer
        guard let type = DBusMessageType(rawValue: dbus_message_get_type(pointer)) else {
            throw DBusError.invalidArguments("Unknown D-Bus message type \(dbus_message_get_type(pointer))")
        }
        func text(_ get: (OpaquePointer) -> UnsafePointer<CChar>?) -> String? {
            get(pointer).map { String(cString: $0) }
        }
        let replySerial = dbus_message_get_reply_serial(pointer)
        self.init(
            type: type,
            serial: dbus_message_get_serial(pointer),
            replySerial: replySerial == 0 ? nil : replySerial,
            sender: text(dbus_message_get_sender).map(BusName.init(unchecked:)),
            destination: text(dbus_message_get_destination).map(BusName.init(unchecked:)),
            path: text(dbus_message_get_path).map(ObjectPath.init(unchecked:)),
            interface: text(dbus_message_get_interface).map(InterfaceName.init(unchecked:)),
            member: text(dbus_message_get_member).map(MemberName.init(unchecked:)),
            errorName: text(dbus_message_get_error_name).map(ErrorName.init(unchecked:)),
            arguments: try MessageBodyReader.read(pointer),
            expectsReply: dbus_message_get_no_reply(pointer) == 0)
    }

    /// `body` with a C string of `value`, or with nil.
    private static func withOptionalCString<Result>(_ value: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        guard let value else { return body(nil) }
        return value.withCString { body($0) }
    }

    /// Builds the libdbus message, checking that the header fields this type needs are present.
    func makeHandle() throws(DBusError) -> MessageHandle {
        switch type {
        case .methodCall:
            guard path != nil, member != nil else {
                throw DBusError.invalidArguments("A method call needs a path and a member")
            }
        case .signal:
            guard path != nil, interface != nil, member != nil else {
                throw DBusError.invalidArguments("A signal needs a path, an interface and a member")
            }
        case .methodReturn:
            guard replySerial != nil else { throw DBusError.invalidArguments("A reply needs a reply serial") }
        case .error:
            guard replySerial != nil, errorName != nil else {
                throw DBusError.invalidArguments("An error reply needs a reply serial and an error name")
            }
        }
        // A call or a signal is made with its header fields at once (dbus_message_new_method_call,
        // dbus_message_new_signal): each dbus_message_set_* after dbus_message_new rewrites the header,
        // which made building a call several times dearer than sending it.
        let made: OpaquePointer?
        switch type {
        case .methodCall:
            made = Self.withOptionalCString(destination?.rawValue) { destination in
                Self.withOptionalCString(interface?.rawValue) { interface in
                    (path?.rawValue ?? "").withCString { path in
                        (member?.rawValue ?? "").withCString { member in
                            dbus_message_new_method_call(destination, path, interface, member)
                        }
                    }
                }
            }
        case .signal:
            made = (path?.rawValue ?? "").withCString { path in
                (interface?.rawValue ?? "").withCString { interface in
                    (member?.rawValue ?? "").withCString { member in dbus_message_new_signal(path, interface, member) }
                }
            }
        case .methodReturn, .error:
            made = dbus_message_new(type.rawValue)
        }
        guard let pointer = made else {
            throw DBusError.noMemory("Cannot allocate a D-Bus message")
        }
        let handle = MessageHandle(taking: pointer)
        var ok = true
        func set(_ value: String?, _ setter: (OpaquePointer, UnsafePointer<CChar>) -> dbus_bool_t) {
            guard let value, ok else { return }
            ok = value.withCString { setter(pointer, $0) } != 0
        }
        if type == .signal {
            set(destination?.rawValue, dbus_message_set_destination)
        } else if type != .methodCall {
            set(path?.rawValue, dbus_message_set_path)
            set(interface?.rawValue, dbus_message_set_interface)
            set(member?.rawValue, dbus_message_set_member)
            set(destination?.rawValue, dbus_message_set_destination)
        }
        set(sender?.rawValue, dbus_message_set_sender)
        set(errorName?.rawValue, dbus_message_set_error_name)
        if ok, let replySerial {
            ok = dbus_message_set_reply_serial(pointer, replySerial) != 0
        }
        guard ok else { throw DBusError.noMemory("Cannot set the D-Bus message header") }
        if serial != 0 {
            dbus_message_set_serial(pointer, serial)
        }
        if type == .methodCall && !expectsReply {
            dbus_message_set_no_reply(pointer, 1)
        }
        try MessageBodyWriter.append(arguments, to: handle)
        return handle
    }
}
