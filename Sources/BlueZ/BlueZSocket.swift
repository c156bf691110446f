import DBus

/// A socket bluetoothd handed over (AcquireWrite, AcquireNotify): owned here, closed exactly once.
public final class BlueZSocket: Sendable {
    private let descriptor: OwnedFileDescriptor

    init(_ descriptor: OwnedFileDescriptor) {
        self.descriptor = descriptor
    }

    /// Takes ownership of `rawValue` (a socket of the caller's, e.g. one end of a pair in tests).
    public convenience init(taking rawValue: Int32) {
        self.init(OwnedFileDescriptor(taking: rawValue))
    }

    /// The descriptor while it is open and owned here; borrowed: do not close it.
    public var rawValue: Int32? { descriptor.rawValue }

    /// Hands the descriptor over to the caller, who must close it; later calls return nil.
    public func takeRawValue() -> Int32? { descriptor.takeRawValue() }

    /// Closes the descriptor if it is still owned here.
    public func close() { descriptor.close() }
}
