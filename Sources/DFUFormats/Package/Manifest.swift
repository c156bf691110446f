import FoundationEssentials

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
    public init(json: [UInt8]) throws(PackageError) {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch let error as PackageError {
            throw error
        } catch let error as DecodingError {
            // The decoder calls a number too large for its field "not valid JSON"; say which it is.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
               (try? JSONDecoder().decode(AnyJSON.self, from: Data(json))) != nil {
                throw .invalidManifest(cause: "a number in the file is too large for its field")
            }
            throw .invalidManifest(cause: Self.cause(of: error))
        } catch {
            throw .invalidManifest(cause: "cannot be read as JSON")
        }
        let body = file.manifest
        let entries = PartKind.uploadOrder.compactMap { kind in body.parts[kind].map { (kind, $0) } }
        guard !entries.isEmpty else { throw .noParts }
        let systemKinds = entries.map(\.0).filter(\.isSystem)
        guard systemKinds.count <= 1 else { throw .severalSystemParts(systemKinds) }
        let isLegacy = body.dfuVersion != nil || entries.contains { $0.1.initPacketData != nil }
        self.format = isLegacy ? .legacy : .secure
        self.dfuVersion = body.dfuVersion
        self.entries = entries.map { kind, raw in
            Entry(
                kind: kind, binFile: raw.binFile, datFile: raw.datFile,
                softdeviceSize: raw.metadata?.softdeviceSize ?? raw.softdeviceSize,
                bootloaderSize: raw.metadata?.bootloaderSize ?? raw.bootloaderSize,
                hasInitPacketData: raw.initPacketData != nil)
        }
    }

    /// Any JSON value, numbers read as Double: tells a valid document from broken text.
    private enum AnyJSON: Decodable {
        case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let value = try? container.decode(Bool.self) { self = .bool(value) }
            else if let value = try? container.decode(Double.self) { self = .number(value) }
            else if let value = try? container.decode(String.self) { self = .string(value) }
            else if let value = try? container.decode([AnyJSON].self) { self = .array(value) }
            else { self = .object(try container.decode([String: AnyJSON].self)) }
        }
    }

    /// One line for a decoding failure, with the JSON path where it happened.
    private static func cause(of error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "the top level" : "'" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "key '\(key.stringValue)' is missing in \(path(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "the value at \(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the file is not valid JSON" : "the value at \(path(context.codingPath)) is invalid"
        @unknown default:
            return "cannot be decoded"
        }
    }

    // MARK: - JSON shape

    private struct File: Decodable {
        let manifest: Body
    }

    private struct Body: Decodable {
        let dfuVersion: Double?
        let parts: [PartKind: RawEntry]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            var parts: [PartKind: RawEntry] = [:]
            var dfuVersion: Double? = nil
            for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                if key.stringValue == "dfu_version" {
                    dfuVersion = try container.decode(Double.self, forKey: key)
                } else if let kind = PartKind(rawValue: key.stringValue) {
                    parts[kind] = try container.decode(RawEntry.self, forKey: key)
                } else {
                    throw PackageError.unknownPart(key: key.stringValue)
                }
            }
            self.parts = parts
            self.dfuVersion = dfuVersion
        }
    }

    private struct RawEntry: Decodable {
        let binFile: String
        let datFile: String?
        let softdeviceSize: UInt32?
        let bootloaderSize: UInt32?
        let metadata: Metadata?
        let initPacketData: InitPacketData?

        enum CodingKeys: String, CodingKey {
            case binFile = "bin_file"
            case datFile = "dat_file"
            case softdeviceSize = "sd_size"
            case bootloaderSize = "bl_size"
            case metadata = "info_read_only_metadata"
            case initPacketData = "init_packet_data"
        }
    }

    private struct Metadata: Decodable {
        let softdeviceSize: UInt32?
        let bootloaderSize: UInt32?

        enum CodingKeys: String, CodingKey {
            case softdeviceSize = "sd_size"
            case bootloaderSize = "bl_size"
        }
    }

    /// Legacy `init_packet_data`: only its presence matters here; the `.dat` is what is sent.
    private struct InitPacketData: Decodable {}

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension PartKind {
    /// The order parts are uploaded in: the system part first, then the application.
    static let uploadOrder: [PartKind] = [.softdeviceBootloader, .softdevice, .bootloader, .application]
}
