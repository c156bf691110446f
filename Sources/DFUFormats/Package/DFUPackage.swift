/// A checked DFU package: its format and its parts in upload order (system part first).
///
/// Built from the entries of a zip (name → bytes) so the core never touches files or zips.
public struct DFUPackage: Sendable, Hashable {
    /// Secure or Legacy.
    public let format: PackageFormat
    /// The parts in the order they are uploaded: at most one system part, then the application.
    public let parts: [FirmwarePart]

    /// Makes a package from parts already checked; they are put in upload order.
    public init(format: PackageFormat, parts: [FirmwarePart]) {
        self.format = format
        self.parts = parts.filter { $0.kind.isSystem } + parts.filter { !$0.kind.isSystem }
    }
}
