internal import JSON

/// The `manifest.json` of a DFU package: which parts it has and where their files are.
///
/// Two dialects exist. Secure (nrfutil 1.x–6.x) has only part entries, with the SoftDevice and
/// bootloader sizes of a combined image under `info_read_only_metadata`. Legacy (nrfutil 0.5.x,
/// adafruit-nrfutil) adds `dfu_version` and per-part `init_packet_data`, with those sizes at
/// entry level. A manifest with `dfu_version` or any `init_packet_data` is Legacy.
public struct Manifest: Sendable, Hashable {
    /// Secure or Legacy, as detected from the keys.
    public let format: PackageFormat
    /// `dfu_version` (Legacy only), e.g. 0.5.
    public let dfuVersion: Double?
    /// The parts in upload order: the system part (if any), then the application.
    public let entries: [Entry]

    /// One part entry of the manifest.
    public struct Entry: Sendable, Hashable {
        /// The part's kind, from its key.
        public let kind: PartKind
        /// `bin_file`: the image's entry name.
        public let binFile: String
        /// `dat_file`: the init packet's entry name (Legacy packages may omit it).
        public let datFile: String?
        /// `sd_size` from `info_read_only_metadata` or entry level.
        public let softdeviceSize: UInt32?
        /// `bl_size` from `info_read_only_metadata` or entry level.
        public let bootloaderSize: UInt32?
        /// Whether the entry has `init_packet_data` (Legacy).
        public let hasInitPacketData: Bool
    }

    /// Parses `manifest.json`; throws ``PackageError/invalidManifest(cause:)``,
    /// ``PackageError/unknownPart(key:)``, ``PackageError/noParts`` or ``PackageError/severalSystemParts(_:)``.
    ///
    /// Keys other than those read here are ignored; an optional key given `null` counts as absent.
    public init(json: [UInt8]) throws(PackageError) {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: json)
        } catch .tooDeep(let limit) {
            throw .invalidManifest(cause: "the file nests deeper than \(limit) levels")
        } catch .invalidUTF8 {
            throw .invalidManifest(cause: "a string in the file is not valid UTF-8")
        } catch {
            throw .invalidManifest(cause: "the file is not valid JSON")
        }
        let body = try ManifestField(root, path: []).object().required("manifest").object()
        var parts: [PartKind: RawEntry] = [:]
        var dfuVersion: Double? = nil
        for key in body.value.keys.sorted() {
            if key == "dfu_version" {
                dfuVersion = try body.required(key).double()
            } else if let kind = PartKind(rawValue: key) {
                parts[kind] = try RawEntry(body.required(key))
            } else {
                throw .unknownPart(key: key)
            }
        }
        let entries = PartKind.uploadOrder.compactMap { kind in parts[kind].map { (kind, $0) } }
        guard !entries.isEmpty else { throw .noParts }
        let systemKinds = entries.map(\.0).filter(\.isSystem)
        guard systemKinds.count <= 1 else { throw .severalSystemParts(systemKinds) }
        let isLegacy = dfuVersion != nil || entries.contains { $0.1.hasInitPacketData }
        self.format = isLegacy ? .legacy : .secure
        self.dfuVersion = dfuVersion
        self.entries = entries.map { kind, raw in
            Entry(
                kind: kind, binFile: raw.binFile, datFile: raw.datFile,
                softdeviceSize: raw.metadataSoftdeviceSize ?? raw.softdeviceSize,
                bootloaderSize: raw.metadataBootloaderSize ?? raw.bootloaderSize,
                hasInitPacketData: raw.hasInitPacketData)
        }
    }

    /// One part's entry as written: `bin_file`, `dat_file`, the sizes at entry level and under
    /// `info_read_only_metadata`, and whether Legacy's `init_packet_data` (an object; only its presence
    /// matters, the `.dat` is what is sent) is there.
    private struct RawEntry {
        let binFile: String
        let datFile: String?
        let softdeviceSize: UInt32?
        let bootloaderSize: UInt32?
        let metadataSoftdeviceSize: UInt32?
        let metadataBootloaderSize: UInt32?
        let hasInitPacketData: Bool

        init(_ field: ManifestField) throws(PackageError) {
            let entry = try field.object()
            binFile = try entry.required("bin_file").string()
            datFile = try entry.optional("dat_file")?.string()
            softdeviceSize = try entry.optional("sd_size")?.size()
            bootloaderSize = try entry.optional("bl_size")?.size()
            let metadata = try entry.optional("info_read_only_metadata")?.object()
            metadataSoftdeviceSize = try metadata?.optional("sd_size")?.size()
            metadataBootloaderSize = try metadata?.optional("bl_size")?.size()
            hasInitPacketData = try entry.optional("init_packet_data")?.object() != nil
        }
    }
}

/// A value of `manifest.json` and where it is, for errors that name the place: "key 'bin_file' is missing in
/// 'manifest.application'", "the value at 'manifest.application.sd_size' has the wrong type".
private struct ManifestField {
    let value: JSONValue
    let path: [String]

    init(_ value: JSONValue, path: [String]) {
        self.value = value
        self.path = path
    }

    private var place: String { Self.place(of: path) }

    /// "the top level", or the path as `'manifest.application.sd_size'`.
    static func place(of path: [String]) -> String {
        path.isEmpty ? "the top level" : "'" + path.joined(separator: ".") + "'"
    }

    func wrongType() -> PackageError { .invalidManifest(cause: "the value at \(place) has the wrong type") }

    /// The value as an object, with its members at their paths.
    func object() throws(PackageError) -> ManifestObject {
        guard case .object(let members) = value else { throw wrongType() }
        return ManifestObject(value: members, path: path)
    }

    func string() throws(PackageError) -> String {
        guard let text = value.stringValue else { throw wrongType() }
        return text
    }

    func double() throws(PackageError) -> Double {
        guard value.isNumber else { throw wrongType() }
        guard let number = value.doubleValue else {
            throw .invalidManifest(cause: "the value at \(place) is too large for its field")
        }
        return number
    }

    /// A size in bytes: a whole number from 0 to 2^32 − 1.
    func size() throws(PackageError) -> UInt32 {
        switch value {
        case .double, .integer(Int64.min ... -1):
            throw .invalidManifest(cause: "the value at \(place) is invalid")
        case .integer, .unsignedInteger, .integerBeyond64Bits:
            guard let size = value.integer(as: UInt32.self) else {
                throw .invalidManifest(cause: "the value at \(place) is too large for its field")
            }
            return size
        default:
            throw wrongType()
        }
    }
}

/// An object of `manifest.json` and where it is.
private struct ManifestObject {
    let value: [String: JSONValue]
    let path: [String]

    /// The member `key`; missing or null is an error.
    func required(_ key: String) throws(PackageError) -> ManifestField {
        guard let member = value[key] else {
            throw .invalidManifest(cause: "key '\(key)' is missing in \(ManifestField.place(of: path))")
        }
        let field = ManifestField(member, path: path + [key])
        guard member != .null else { throw field.wrongType() }
        return field
    }

    /// The member `key`, nil when it is missing or null.
    func optional(_ key: String) -> ManifestField? {
        guard let member = value[key], member != .null else { return nil }
        return ManifestField(member, path: path + [key])
    }
}

extension PartKind {
    /// The order parts are uploaded in: the system part first, then the application.
    static let uploadOrder: [PartKind] = [.softdeviceBootloader, .softdevice, .bootloader, .application]
}
