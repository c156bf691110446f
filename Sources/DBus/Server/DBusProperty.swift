/// A property of an exported interface, with its current value.
///
/// The property's type is fixed by ``signature``; later values must keep it. A property
/// without a value is absent: `GetAll` leaves it out and `Get` fails, until a value is set
/// (as bluetoothd does with `RSSI` outside discovery).
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
    /// The property's type, one complete type.
    public var signature: DBusSignature
    /// The initial value, or `nil` for a property that starts absent.
    public var value: DBusValue?
    /// Who may read and write it.
    public var access: Access
    /// Whether changes are announced with `PropertiesChanged`.
    public var emitsChangedSignal: Bool
    /// Accepts peer writes; required for ``Access/write`` and ``Access/readWrite``.
    public var onSet: SetHandler?

    /// Describes a property whose type is that of its initial value.
    public init(
        _ name: MemberName,
        value: DBusValue,
        access: Access = .read,
        emitsChangedSignal: Bool = true,
        onSet: SetHandler? = nil
    ) {
        self.init(
            name, signature: value.signature, access: access, emitsChangedSignal: emitsChangedSignal, onSet: onSet)
        self.value = value
    }

    /// Describes a property of type `signature` that starts absent.
    public init(
        _ name: MemberName,
        signature: DBusSignature,
        access: Access = .read,
        emitsChangedSignal: Bool = true,
        onSet: SetHandler? = nil
    ) {
        self.name = name
        self.signature = signature
        self.value = nil
        self.access = access
        self.emitsChangedSignal = emitsChangedSignal
        self.onSet = onSet
    }

    var isReadable: Bool { access != .write }
    var isWritable: Bool { access != .read }
}
