/// A property of an exported interface, with its current value.
///
/// The property's type is the signature of its initial ``value``; later values must keep it.
public struct DBusProperty: Sendable {
    /// Who may read and write the property.
    public enum Access: String, Sendable {
        /// Readable only.
        case read
        /// Writable only.
        case write
        /// Readable and writable.
        case readWrite = "readwrite"
    }

    /// Checks and accepts a value written by a peer through `org.freedesktop.DBus.Properties.Set`.
    ///
    /// Runs on the connection's I/O thread, so it must return quickly. Throwing refuses the
    /// write and sends the error to the peer; returning stores the value and emits
    /// `PropertiesChanged`.
    public typealias SetHandler = @Sendable (DBusValue) throws -> Void

    /// The property name.
    public var name: MemberName
    /// The initial value.
    public var value: DBusValue
    /// Who may read and write it.
    public var access: Access
    /// Whether changes are announced with `PropertiesChanged`.
    public var emitsChangedSignal: Bool
    /// Accepts peer writes; required for ``Access/write`` and ``Access/readWrite``.
    public var onSet: SetHandler?

    /// Describes a property.
    public init(
        _ name: MemberName,
        value: DBusValue,
        access: Access = .read,
        emitsChangedSignal: Bool = true,
        onSet: SetHandler? = nil
    ) {
        self.name = name
        self.value = value
        self.access = access
        self.emitsChangedSignal = emitsChangedSignal
        self.onSet = onSet
    }

    var isReadable: Bool { access != .write }
    var isWritable: Bool { access != .read }
}
