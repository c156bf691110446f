public import DFUCrypto

extension DFUPackage {
    /// Reads and checks the structure of a single raw image (see ``RawImage`` for how the format
    /// is chosen); digest and signature results are recorded in the report.
    public static func inspect(raw: RawImage, key: ECDSAP256.PublicKey? = nil) throws(PackageError) -> PackageReport {
        let format = raw.format
        let inspector = PartInspector(
            kind: raw.kind, image: try raw.flatImage(), imageName: raw.imageName, initPacket: raw.initPacket,
            initPacketName: raw.initPacketName, format: format, dfuVersion: nil,
            softdeviceSize: raw.softdeviceSize, bootloaderSize: raw.bootloaderSize, key: key)
        return PackageReport(format: format, dfuVersion: nil, parts: [try inspector.report()], keyWasGiven: key != nil)
    }

    /// Reads a single raw image and runs every check: ``inspect(raw:key:)`` then ``PackageReport/checkedPackage()``.
    public init(raw: RawImage, key: ECDSAP256.PublicKey? = nil) throws(PackageError) {
        self = try Self.inspect(raw: raw, key: key).checkedPackage()
    }
}
