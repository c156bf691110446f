public import DFUFormats
/// Which parts of a package to send.
public enum DFUScope: String, Sendable, Hashable, CaseIterable {
    /// Only the system part (SoftDevice and/or bootloader).
    case system
    /// Only the application.
    case application
    /// Everything, system part first.
    case all

    /// Whether a part of this kind is sent under the scope.
    public func includes(_ kind: PartKind) -> Bool {
        switch self {
        case .system: kind.isSystem
        case .application: !kind.isSystem
        case .all: true
        }
    }
}
