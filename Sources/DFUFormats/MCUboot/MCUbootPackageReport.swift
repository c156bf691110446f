public import DFUCrypto

/// What an MCUboot image file, or an nRF Connect SDK package of them, holds, checked image by image.
///
/// Three inputs: a lone image (`app_update.bin`, `zephyr.signed.bin`), the same as Intel HEX
/// (`zephyr.signed.hex`, flattened from its lowest address with gaps filled with 0xFF, as
/// imgtool's `IntelHex.tobinstr` does), and a zip whose `manifest.json` has a `files` list
/// (``NCSManifest``). Structural faults throw ``MCUbootError``; hash and signature verdicts are
/// recorded, and ``check()`` turns the bad ones into errors.
public struct MCUbootPackageReport: Sendable, Hashable {
    /// The images in manifest order (one for a lone image).
    public let images: [MCUbootImageReport]
    /// The package's manifest, nil for a lone image.
    public let manifest: NCSManifest?
    /// For Intel HEX input: the address of the image's first byte.
    public let hexBaseAddress: UInt32?
    /// Whether a key was given (a missing or uncheckable signature is then an error).
    public let keyWasGiven: Bool

    /// Reads a lone image, flat or Intel HEX (judged by a `.hex` name ending, any case).
    public static func inspect(file bytes: [UInt8], name: String, key: VerifyingKey? = nil) throws(MCUbootError) -> Self {
        var flat = bytes
        var base: UInt32? = nil
        if name.lowercased().hasSuffix(".hex") {
            let hex: IntelHex
            do {
                hex = try IntelHex(text: bytes, name: name)
            } catch {
                throw .malformed(name: name, cause: error.description)
            }
            guard let first = hex.segments.first, let last = hex.segments.last else {
                throw .malformed(name: name, cause: "the Intel HEX file holds no data")
            }
            let span = last.endAddress - UInt64(first.address)
            guard span <= UInt64(IntelHex.maximumImageSize) else {
                throw .malformed(name: name, cause: "the data spans \(span) bytes, more than the \(IntelHex.maximumImageSize) an image may have")
            }
            flat = [UInt8](repeating: 0xFF, count: Int(span))
            for segment in hex.segments {
                let start = Int(UInt64(segment.address) - UInt64(first.address))
                flat.replaceSubrange(start..<(start + segment.bytes.count), with: segment.bytes)
            }
            base = first.address
        }
        let image = try MCUbootImage(bytes: flat, name: name)
        return Self(images: [MCUbootImageReport(image: image, key: key)], manifest: nil, hexBaseAddress: base, keyWasGiven: key != nil)
    }

    /// Reads an nRF Connect SDK zip from its entries (name → bytes): the manifest, then every image it lists.
    public static func inspect(entries: [String: [UInt8]], key: VerifyingKey? = nil) throws(MCUbootError) -> Self {
        guard let json = entries["manifest.json"] else { throw .invalidManifest(cause: "the package has no manifest") }
        let manifest = try NCSManifest(json: json)
        var reports: [MCUbootImageReport] = []
        for entry in manifest.entries {
            guard let bytes = entries[entry.file] else { throw .missingMember(name: entry.file) }
            if let size = entry.size, size != bytes.count {
                throw .sizeMismatch(name: entry.file, manifestSize: size, actualSize: bytes.count)
            }
            let image = try MCUbootImage(bytes: bytes, name: entry.file)
            reports.append(MCUbootImageReport(image: image, manifestEntry: entry, key: key))
        }
        return Self(images: reports, manifest: manifest, hexBaseAddress: nil, keyWasGiven: key != nil)
    }

    /// Throws the first image's reason not to be sent (see ``MCUbootImageReport/check(keyWasGiven:)``).
    public func check() throws(MCUbootError) {
        for image in images { try image.check(keyWasGiven: keyWasGiven) }
    }
}
