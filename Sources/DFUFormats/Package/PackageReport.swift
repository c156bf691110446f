/// Everything `dfu inspect` shows about a package, produced before any check could refuse it.
///
/// ``DFUPackage/inspect(entries:key:)`` throws only for structural faults (manifest, missing
/// entries, sizes, undecodable init packets). Digest and signature results are recorded here,
/// and ``checkedPackage()`` turns them into errors.
public struct PackageReport: Sendable, Hashable {
    /// Secure or Legacy.
    public let format: PackageFormat
    /// The manifest's `dfu_version` (Legacy), nil otherwise.
    public let dfuVersion: Double?
    /// The parts in upload order.
    public let parts: [PartReport]
    /// Whether a public key was given, which makes an unsigned or uncheckable init packet an error.
    public let keyWasGiven: Bool

    /// Makes a report.
    public init(format: PackageFormat, dfuVersion: Double?, parts: [PartReport], keyWasGiven: Bool) {
        self.format = format
        self.dfuVersion = dfuVersion
        self.parts = parts
        self.keyWasGiven = keyWasGiven
    }

    /// The package, once every image matches its init packet and, with a key, every signature verifies.
    ///
    /// Throws ``PackageError/hashMismatch(name:imageName:)``, ``PackageError/hashNotCheckable(name:reason:)``,
    /// ``PackageError/invalidSignature(name:)``, ``PackageError/invalidBootValidationSignature(name:)``, and with a key ``PackageError/unsignedInitPacket(name:)``
    /// or ``PackageError/unverifiableSignature(name:reason:)``.
    public func checkedPackage() throws(PackageError) -> DFUPackage {
        for report in parts {
            let datName = report.initPacketName ?? report.imageName
            switch report.imageCheck {
            case .matches: break
            case .mismatch: throw .hashMismatch(name: datName, imageName: report.imageName)
            case .notChecked(let reason):
                // A Legacy part may come without init packet (SDK ≤ 6 bootloaders accept that).
                if case .none = report.initPacket, format == .legacy { break }
                throw .hashNotCheckable(name: datName, reason: reason)
            }
            switch report.signature {
            case .valid, .notChecked: break
            case .invalid: throw .invalidSignature(name: datName)
            case .unsigned: if keyWasGiven { throw .unsignedInitPacket(name: datName) }
            case .unverifiable(let reason): if keyWasGiven { throw .unverifiableSignature(name: datName, reason: reason) }
            }
            if report.bootValidationSignature == .invalid { throw .invalidBootValidationSignature(name: datName) }
        }
        return DFUPackage(format: format, parts: parts.map(\.part))
    }
}
