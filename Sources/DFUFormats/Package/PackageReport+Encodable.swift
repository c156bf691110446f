/// JSON for `dfu inspect --json`: field names follow `nordic-samples/samples.json` where they
/// exist (`bin_crc32`, `hash_type`, `sd_req` as "0x…" strings…), byte strings are lowercase hex,
/// and absent optional values are left out.
extension PackageReport: Encodable {
    private enum Keys: String, CodingKey {
        case format, dfuVersion = "dfu_version", parts
    }

    /// Encodes the report.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(format.rawValue, forKey: .format)
        try container.encodeIfPresent(dfuVersion, forKey: .dfuVersion)
        try container.encode(parts, forKey: .parts)
    }
}
