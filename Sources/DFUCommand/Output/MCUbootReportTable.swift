import DFUCore
import DFUFormats

/// The human-readable form of an ``MCUbootPackageReport``: a heading, then one block per image.
enum MCUbootReportTable {
    /// Renders `report` for the file at `path`.
    static func render(_ report: MCUbootPackageReport, path: String) -> String {
        let count = report.images.count
        var kind: String
        if let manifest = report.manifest {
            kind = "nRF Connect SDK package of MCUboot images"
            if let version = manifest.formatVersion { kind += " (manifest format-version \(version))" }
        } else if let base = report.hexBaseAddress {
            kind = "MCUboot image in Intel HEX at \(ReportTable.hex(base, digits: 8))"
        } else {
            kind = "MCUboot image"
        }
        var out = "\(path): \(kind), \(count) image\(count == 1 ? "" : "s")\n"
        for item in report.images {
            let image = item.image
            out += "\nImage \(item.imageIndex.map(String.init) ?? "(no index)"): \(item.name), \(image.bytes.count) bytes\n"
            var rows: [(String, String)] = []
            rows.append(("version", image.version.description))
            rows.append(("header", "\(image.headerSize) bytes"))
            rows.append(("body", "\(image.imageSize) bytes"))
            rows.append(("protected TLVs", "\(image.protectedTLVSize) bytes"))
            rows.append(("load address", ReportTable.hex(image.loadAddress, digits: 8)))
            rows.append(("flags", image.flags.description))
            if let entry = item.manifestEntry { rows += manifestRows(entry) }
            for (index, tlv) in image.tlvs.enumerated() {
                rows.append((index == 0 ? "TLVs" : "", tlvText(tlv)))
            }
            let trailing = image.bytes.count - image.tlvEnd
            if let trailer = image.trailer {
                rows.append(("trailer", "padded to \(image.bytes.count) bytes, \(trailer.rawValue)"))
            } else if trailing > 0 {
                rows.append(("after the TLVs", "\(trailing) bytes"))
            }
            rows.append(("hash check", item.hashCheck.description))
            if let keyHash = image.keyHash {
                var text = keyHash.hexString
                if let matches = item.keyMatches { text += matches ? " (the given key)" : " (NOT the given key)" }
                rows.append(("key hash", text))
            } else if image.tlv(MCUbootTLV.publicKey) != nil, let matches = item.keyMatches {
                rows.append(("public key", matches ? "the given key" : "NOT the given key"))
            }
            let signature = item.signature.description
            rows.append(("signature", item.signatureType.map { "\($0.rawValue), \(signature)" } ?? signature))
            let width = (rows.map(\.0.count).max() ?? 0) + 2
            for (label, value) in rows {
                out += "  \(label.padding(width))\(value)\n"
            }
        }
        return out
    }

    private static func manifestRows(_ entry: NCSManifest.Entry) -> [(String, String)] {
        var parts: [String] = []
        if let slot = entry.slot { parts.append("slot \(slot)" + (entry.secondarySlot.map { " (secondary \($0))" } ?? "")) }
        if let address = entry.loadAddress { parts.append("load address \(ReportTable.hex(address, digits: 8))") }
        if let version = entry.version { parts.append("version \(version)") }
        if let type = entry.type { parts.append("type \(type)") }
        if let board = entry.board { parts.append("board \(board)") }
        if let soc = entry.soc { parts.append("soc \(soc)") }
        return [("manifest", parts.isEmpty ? "no details" : parts.joined(separator: ", "))]
    }

    private static func tlvText(_ tlv: MCUbootTLV) -> String {
        var text = "\(tlv.name) (\(tlv.isProtected ? "protected, " : "")\(tlv.value.count) bytes)"
        switch tlv.type {
        case MCUbootTLV.sha256, MCUbootTLV.keyHash:
            text += " " + tlv.value.hexString
        case MCUbootTLV.securityCounter where tlv.value.count == 4:
            let value = tlv.value.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            text += " \(value)"
        default:
            break
        }
        return text
    }
}
