import FoundationEssentials

/// The `manifest.json` of an nRF Connect SDK DFU zip (`dfu_application.zip`, `dfu_mcuboot.zip`).
///
/// Written by nrfconnect/sdk-nrf `scripts/bootloader/generate_zip.py` (top level: `format-version`,
/// `time`, `files`, optional `name` and `firmware`; each `files` entry: the shared and per-file
/// `key=value` pairs the build passes — values written `0x…` become integers, all others stay
/// strings — plus `size`, `file` and `modtime`). The pairs come from `cmake/sysbuild/zip.cmake`
/// (`dfu_app_zip_package`: `load_address`, `image_index`, `slot_index_primary`/`_secondary`, or
/// `slot` for direct-XIP builds, `version_MCUBOOT` or, for the nRF5340 network core, `version`,
/// `board`, `soc`) and `cmake/sysbuild/b0_mcuboot_signing.cmake` (`dfu_mcuboot.zip`: two MCUboot
/// variants for the S0 and S1 slots, `type` `mcuboot`, `version_MCUBOOT` and `version_B0`, no
/// `image_index`). Numbers may therefore come as integers or as strings; both are read.
///
/// An nRF5 SDK package's manifest has a `manifest` object instead of `files`.
public struct NCSManifest: Sendable, Hashable {
    /// `format-version`, if given.
    public let formatVersion: Int?
    /// `name`, if given.
    public let name: String?
    /// The `files` entries in manifest order.
    public let entries: [Entry]

    /// One `files` entry.
    public struct Entry: Sendable, Hashable {
        /// `file`: the zip member.
        public let file: String
        /// `size`: the member's size in bytes.
        public let size: Int?
        /// `image_index` (0 application core, 1 nRF5340 network core), nil when absent.
        public let imageIndex: Int?
        /// `slot_index_primary`, or `slot` (direct XIP).
        public let slot: Int?
        /// `slot_index_secondary`.
        public let secondarySlot: Int?
        /// `load_address`.
        public let loadAddress: UInt64?
        /// `version_MCUBOOT`, `version_MCUBOOT+XIP` or `version`, as written.
        public let version: String?
        /// `type`, e.g. `application` or `mcuboot`.
        public let type: String?
        /// `board`.
        public let board: String?
        /// `soc`.
        public let soc: String?
    }

    /// Whether `json` is a manifest of this kind: an object with a `files` array and no
    /// `manifest` object (which nRF5 packages have).
    public static func isNCSManifest(_ json: [UInt8]) -> Bool {
        guard let probe = try? JSONDecoder().decode(Probe.self, from: Data(json)) else { return false }
        return probe.files != nil && !probe.hasManifest
    }

    /// Parses `manifest.json`; throws ``MCUbootError/invalidManifest(cause:)`` or ``MCUbootError/noImages``.
    public init(json: [UInt8]) throws(MCUbootError) {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch let error as MCUbootError {
            throw error
        } catch let error as DecodingError {
            throw .invalidManifest(cause: Self.cause(of: error))
        } catch {
            throw .invalidManifest(cause: "cannot be read as JSON")
        }
        guard !file.files.isEmpty else { throw .noImages }
        formatVersion = file.formatVersion
        name = file.name
        entries = file.files
    }

    private struct Probe: Decodable {
        let files: [Ignored]?
        let hasManifest: Bool
        private enum Keys: String, CodingKey { case files, manifest }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            files = try? container.decodeIfPresent([Ignored].self, forKey: .files)
            hasManifest = container.contains(.manifest)
        }
    }

    private struct Ignored: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    private struct File: Decodable {
        let formatVersion: Int?
        let name: String?
        let files: [Entry]
        private enum Keys: String, CodingKey { case formatVersion = "format-version", name, files }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            formatVersion = try? container.decodeIfPresent(Int.self, forKey: .formatVersion)
            name = try? container.decodeIfPresent(String.self, forKey: .name)
            files = try container.decode([Entry].self, forKey: .files)
        }
    }

    private static func cause(of error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "the top level" : "'" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "key '\(key.stringValue)' is missing in \(path(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)) is invalid"
        @unknown default:
            return "cannot be read"
        }
    }
}

extension NCSManifest.Entry: Decodable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads an entry; `file` is required, every other key is optional and may be a number or a
    /// string holding one (decimal, or hex with `0x`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        file = try container.decode(String.self, forKey: Key("file"))
        guard !file.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: Key("file"), in: container, debugDescription: "empty")
        }
        func number(_ name: String) throws -> UInt64? {
            let key = Key(name)
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
            if let value = try? container.decode(UInt64.self, forKey: key) { return value }
            let text = try container.decode(String.self, forKey: key)
            let parsed = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            guard let parsed else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a number")
            }
            return parsed
        }
        func small(_ name: String) throws -> Int? {
            guard let value = try number(name) else { return nil }
            guard value <= UInt64(Int32.max) else {
                throw DecodingError.dataCorruptedError(forKey: Key(name), in: container, debugDescription: "too large")
            }
            return Int(value)
        }
        func text(_ name: String) -> String? { try? container.decodeIfPresent(String.self, forKey: Key(name)) }
        size = try small("size")
        imageIndex = try small("image_index")
        slot = try small("slot_index_primary") ?? small("slot")
        secondarySlot = try small("slot_index_secondary")
        loadAddress = try number("load_address")
        version = text("version_MCUBOOT") ?? text("version_MCUBOOT+XIP") ?? text("version")
        type = text("type")
        board = text("board")
        soc = text("soc")
    }
}
