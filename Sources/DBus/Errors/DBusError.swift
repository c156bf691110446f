/// An error from the D-Bus layer: a remote D-Bus error, or a local failure named the D-Bus way.
///
/// Remote errors keep the error name and message exactly as the peer sent them.
/// Local failures (timeouts, a lost bus, bad arguments) use the standard
/// `org.freedesktop.DBus.Error.*` names, so callers match every error the same way,
/// through ``code``.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name, such as `org.freedesktop.DBus.Error.ServiceUnknown`.
    public let name: String
    /// The human-readable message that came with the error (may be empty).
    public let message: String

    /// Creates an error from its D-Bus name and message.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// The broad category of this error, derived from its name.
    public var code: Code { Code(errorName: name) }

    /// The error name followed by the message.
    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// Broad categories of D-Bus errors that callers act on.
    public enum Code: Sendable, Equatable {
        /// No reply came in time (`NoReply`, `Timeout`, `TimedOut`).
        case timedOut
        /// The connection to the bus was lost or closed (`Disconnected`).
        case disconnected
        /// No bus is listening at the address (`NoServer`, `FileNotFound`, `BadAddress`).
        case noServer
        /// The bus policy or the peer refused the message (`AccessDenied`).
        case accessDenied
        /// The destination name has no owner (`ServiceUnknown`, `NameHasNoOwner`).
        case noSuchName
        /// No object is exported at the path (`UnknownObject`).
        case unknownObject
        /// The object has no such interface (`UnknownInterface`).
        case unknownInterface
        /// The object has no such method, or the arguments do not match it (`UnknownMethod`).
        case unknownMethod
        /// The interface has no such property (`UnknownProperty`).
        case unknownProperty
        /// The property cannot be written (`PropertyReadOnly`).
        case propertyReadOnly
        /// The arguments were malformed or of the wrong type (`InvalidArgs`, `InvalidSignature`).
        case invalidArguments
        /// The waiting task was cancelled before the reply came.
        case cancelled
        /// Any other error name; read ``DBusError/name``.
        case other

        /// Classifies an error name.
        public init(errorName: String) {
            switch errorName {
            case DBusError.Names.noReply, DBusError.Names.timeout, DBusError.Names.timedOut:
                self = .timedOut
            case DBusError.Names.disconnected: self = .disconnected
            case DBusError.Names.noServer, DBusError.Names.fileNotFound, DBusError.Names.badAddress:
                self = .noServer
            case DBusError.Names.accessDenied: self = .accessDenied
            case DBusError.Names.serviceUnknown, DBusError.Names.nameHasNoOwner: self = .noSuchName
            case DBusError.Names.unknownObject: self = .unknownObject
            case DBusError.Names.unknownInterface: self = .unknownInterface
            case DBusError.Names.unknownMethod: self = .unknownMethod
            case DBusError.Names.unknownProperty: self = .unknownProperty
            case DBusError.Names.propertyReadOnly: self = .propertyReadOnly
            case DBusError.Names.invalidArgs, DBusError.Names.invalidSignature: self = .invalidArguments
            case DBusError.Names.cancelled: self = .cancelled
            default: self = .other
            }
        }
    }

    /// Well-known error names used by the bus, by this layer, and by exported objects.
    public enum Names {
        /// No reply to a method call arrived before the timeout.
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        /// A timeout occurred.
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        /// An operation timed out.
        public static let timedOut = "org.freedesktop.DBus.Error.TimedOut"
        /// The connection is closed or was lost.
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        /// No server listens at the address.
        public static let noServer = "org.freedesktop.DBus.Error.NoServer"
        /// The socket file of the address does not exist.
        public static let fileNotFound = "org.freedesktop.DBus.Error.FileNotFound"
        /// The address could not be parsed.
        public static let badAddress = "org.freedesktop.DBus.Error.BadAddress"
        /// The security policy refused the message.
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        /// The destination name is not owned and cannot be activated.
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        /// The name has no owner.
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// No object at the path.
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        /// No such interface on the object.
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        /// No such method, or wrong arguments.
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        /// No such property.
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        /// The property is read-only.
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        /// Invalid arguments.
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        /// Invalid type signature.
        public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
        /// A generic failure.
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        /// Out of memory.
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
        /// The waiting task was cancelled (this layer's own name; never sent on the bus).
        public static let cancelled = "dfu.DBus.Error.Cancelled"
    }

    static func timedOut(_ message: String) -> DBusError { DBusError(name: Names.noReply, message: message) }
    static func disconnected(_ message: String) -> DBusError { DBusError(name: Names.disconnected, message: message) }
    static func invalidArguments(_ message: String) -> DBusError {
        DBusError(name: Names.invalidArgs, message: message)
    }
    /// `org.freedesktop.DBus.Error.Failed` with `message`.
    public static func failed(_ message: String) -> DBusError { DBusError(name: Names.failed, message: message) }
    static func noMemory(_ message: String) -> DBusError { DBusError(name: Names.noMemory, message: message) }
    static func cancelled(_ message: String) -> DBusError { DBusError(name: Names.cancelled, message: message) }
}
