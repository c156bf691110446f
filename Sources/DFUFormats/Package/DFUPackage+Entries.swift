public import DFUCrypto

extension DFUPackage {
    /// Reads and checks the structure of a package given as its zip entries (name → bytes).
    ///
    /// Parses `manifest.json`, finds every named entry, decodes every init packet and checks
    /// that types and sizes agree. Digest and signature results are recorded in the report, not
    /// thrown: call ``PackageReport/checkedPackage()`` for a package that may be sent.
    public static func inspect(entries: [String: [UInt8]], key: ECDSAP256.PublicKey? = nil) throws(PackageError) -> PackageReport {
        guard let json = entries["manifest.json"] else { throw .missingManifest }
        if NCSManifest.isNCSManifest(json) { throw .mcubootPackage }
        let manifest = try Manifest(json: json)
        var reports: [PartReport] = []
        for entry in manifest.entries {
            guard let image = entries[entry.binFile] else { throw .missingEntry(name: entry.binFile, part: entry.kind) }
            var initPacket: [UInt8]? = nil
            if let datFile = entry.datFile {
                guard let bytes = entries[datFile] else { throw .missingEntry(name: datFile, part: entry.kind) }
                initPacket = bytes
            }
            let inspector = PartInspector(
                kind: entry.kind, image: image, imageName: entry.binFile, initPacket: initPacket,
                initPacketName: entry.datFile, format: manifest.format, dfuVersion: manifest.dfuVersion,
                softdeviceSize: entry.softdeviceSize, bootloaderSize: entry.bootloaderSize, key: key)
            reports.append(try inspector.report())
        }
        return PackageReport(format: manifest.format, dfuVersion: manifest.dfuVersion, parts: reports, keyWasGiven: key != nil)
    }

    /// Reads a package from its zip entries and runs every check: ``inspect(entries:key:)``
    /// followed by ``PackageReport/checkedPackage()``.
    public init(entries: [String: [UInt8]], key: ECDSAP256.PublicKey? = nil) throws(PackageError) {
        self = try Self.inspect(entries: entries, key: key).checkedPackage()
    }
}
