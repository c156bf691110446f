/// Writes `manifest.json` as nrfutil 6.1.7 does (`nordicsemi/dfu/manifest.py`,
/// `ManifestGenerator.to_json`): Python's `json.dumps(..., sort_keys=True, indent=4,
/// separators=(',', ': '))`, absent fields left out, no newline at the end, non-ASCII characters
/// escaped as `\uXXXX`.
public enum NrfutilManifestWriter {
    /// One part's entry: its manifest key (`application`, `bootloader`, `softdevice`,
    /// `softdevice_bootloader`), its file names, and for a combined image the two sizes.
    public struct Part: Sendable {
        public let key: String
        public let binFile: String
        public let datFile: String
        public let sizes: (softdevice: Int, bootloader: Int)?

        public init(key: String, binFile: String, datFile: String, sizes: (softdevice: Int, bootloader: Int)? = nil) {
            self.key = key
            self.binFile = binFile
            self.datFile = datFile
            self.sizes = sizes
        }
    }

    /// The text of `manifest.json` for `parts`.
    public static func json(_ parts: [Part]) -> String {
        var text = "{\n    \"manifest\": {"
        for (index, part) in parts.sorted(by: { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }).enumerated() {
            text += index == 0 ? "\n" : ",\n"
            text += "        \(quoted(part.key)): {\n"
            text += "            \"bin_file\": \(quoted(part.binFile)),\n"
            text += "            \"dat_file\": \(quoted(part.datFile))"
            if let sizes = part.sizes {
                text += ",\n            \"info_read_only_metadata\": {\n"
                text += "                \"bl_size\": \(sizes.bootloader),\n"
                text += "                \"sd_size\": \(sizes.softdevice)\n"
                text += "            }"
            }
            text += "\n        }"
        }
        text += parts.isEmpty ? "}\n}" : "\n    }\n}"
        return text
    }

    /// A JSON string as Python's `json.dumps` writes it with `ensure_ascii=True`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
