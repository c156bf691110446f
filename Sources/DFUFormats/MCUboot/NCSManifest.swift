internal import JSON

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
    /// `manifest` member (which nRF5 packages have).
    public static func isNCSManifest(_ json: [UInt8]) -> Bool {
        guard let root = try? JSONValue(parsing: json), case .array? = root["files"] else { return false }
        return root["manifest"] == nil
    }

    /// Parses `manifest.json`; throws ``MCUbootError/invalidManifest(cause:)`` or ``MCUbootError/noImages``.
    /// Keys other than those read here are ignored; an optional key given `null` counts as absent.
    public init(json: [UInt8]) throws(MCUbootError) {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: json)
        } catch .tooDeep(let limit) {
            throw .invalidManifest(cause: "nests deeper than \(limit) levels")
        } catch .invalidUTF8 {
            throw .invalidManifest(cause: "a string is not valid UTF-8")
        } catch {
            throw .invalidManifest(cause: "not valid JSON")
        }
        guard case .object(let top) = root else { throw .invalidManifest(cause: "the top level has the wrong type") }
        guard let files = top["files"], files != .null else {
            throw .invalidManifest(cause: "key 'files' is missing in the top level")
        }
        guard case .array(let list) = files else { throw .invalidManifest(cause: "'files' has the wrong type") }
        formatVersion = top["format-version"]?.integer(as: Int.self)
        name = top["name"]?.stringValue
        var entries: [Entry] = []
        for (index, entry) in list.enumerated() {
            entries.append(try Entry(entry, path: "files.\(index)"))
        }
        guard !entries.isEmpty else { throw .noImages }
        self.entries = entries
    }
}

extension NCSManifest.Entry {
    /// Reads the entry at `path`; `file` is required, every other key is optional and may be a number or a
    /// string holding one (decimal, or hex with `0x`).
    init(_ value: JSONValue, path: String) throws(MCUbootError) {
        guard case .object(let members) = value else { throw .invalidManifest(cause: "'\(path)' has the wrong type") }
        func wrongType(_ key: String) -> MCUbootError { .invalidManifest(cause: "'\(path).\(key)' has the wrong type") }
        func invalid(_ key: String) -> MCUbootError { .invalidManifest(cause: "'\(path).\(key)' is invalid") }
        guard let file = members["file"], file != .null else {
            throw .invalidManifest(cause: "key 'file' is missing in '\(path)'")
        }
        guard let name = file.stringValue else { throw wrongType("file") }
        guard !name.isEmpty else { throw invalid("file") }
        func number(_ key: String) throws(MCUbootError) -> UInt64? {
            guard let member = members[key], member != .null else { return nil }
            if let value = member.integer(as: UInt64.self) { return value }
            guard let text = member.stringValue else { throw wrongType(key) }
            let parsed = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            guard let parsed else { throw invalid(key) }
            return parsed
        }
        func small(_ key: String) throws(MCUbootError) -> Int? {
            guard let value = try number(key) else { return nil }
            guard value <= UInt64(Int32.max) else { throw invalid(key) }
            return Int(value)
        }
        func text(_ key: String) -> String? { members[key]?.stringValue }
        self.file = name
        size = try small("size")
        imageIndex = try small("image_index")
        if let primary = try small("slot_index_primary") { slot = primary } else { slot = try small("slot") }
        secondarySlot = try small("slot_index_secondary")
        loadAddress = try number("load_address")
        version = text("version_MCUBOOT") ?? text("version_MCUBOOT+XIP") ?? text("version")
        type = text("type")
        board = text("board")
        soc = text("soc")
    }
}
