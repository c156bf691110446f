/// JSON for `dfu inspect --json` of MCUboot images: `{"format":"mcuboot","images":[…]}`, one
/// object per image with `image_index`, `file`, `version`, `header_size`, `image_size`,
/// `load_address`, `flags`, `hash_sha256` (the SHA256 TLV, as SMP's image list shows it),
/// `hash_ok`, `key_hash`, `signature_type` and `signature_ok`; byte strings lowercase hex,
/// unknown values null.
extension MCUbootPackageReport: Encodable {
    private enum Keys: String, CodingKey { case format, images }
    private enum ImageKeys: String, CodingKey {
        case imageIndex = "image_index", file, version, headerSize = "header_size", imageSize = "image_size"
        case loadAddress = "load_address", flags, hashSHA256 = "hash_sha256", hashOK = "hash_ok", keyHash = "key_hash"
        case signatureType = "signature_type", signatureOK = "signature_ok"
    }

    /// Encodes the report.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("mcuboot", forKey: .format)
        var list = container.nestedUnkeyedContainer(forKey: .images)
        for report in images {
            var item = list.nestedContainer(keyedBy: ImageKeys.self)
            let image = report.image
            try item.encode(report.imageIndex, forKey: .imageIndex)
            try item.encode(report.name, forKey: .file)
            try item.encode(image.version.description, forKey: .version)
            try item.encode(image.headerSize, forKey: .headerSize)
            try item.encode(image.imageSize, forKey: .imageSize)
            try item.encode(image.loadAddress, forKey: .loadAddress)
            try item.encode(image.flags.rawValue, forKey: .flags)
            try item.encode(image.imageHash?.hexString, forKey: .hashSHA256)
            try item.encode(report.hashCheck.isOK, forKey: .hashOK)
            try item.encode(image.keyHash?.hexString, forKey: .keyHash)
            try item.encode(report.signatureType?.rawValue, forKey: .signatureType)
            try item.encode(report.signature.isVerified, forKey: .signatureOK)
        }
    }
}
