import DFUCore
import DFUFormats

/// The human-readable form of a ``PackageReport``: a heading, then one block per part.
enum ReportTable {
    /// Renders `report` for the package at `path`.
    /// A raw image without an init packet is named as such, not as a package of either protocol.
    static func render(_ report: PackageReport, path: String, rawWithoutInit: Bool = false) -> String {
        let count = report.parts.count
        var format = report.format == .secure ? "Secure DFU package" : "Legacy DFU package"
        if rawWithoutInit { format = "raw image without an init packet (to upload it, give its --init FILE.dat)" }
        if let version = report.dfuVersion { format += " (DFU version \(version))" }
        var out = "\(path): \(format), \(count) part\(count == 1 ? "" : "s")\n"
        for (index, part) in report.parts.enumerated() {
            out += "\nPart \(index + 1) of \(count): \(part.kind.rawValue)\n"
            var rows: [(String, String)] = []
            var image = "\(part.imageName), \(part.imageSize) bytes"
            if part.kind == .softdeviceBootloader {
                image += " (SoftDevice \(part.softdeviceSize) + bootloader \(part.bootloaderSize))"
            }
            rows.append(("image", image))
            rows.append(("CRC-32", hex(part.crc32, digits: 8)))
            rows.append(("CRC-16", hex(part.crc16, digits: 4)))
            rows.append(("SHA-256", part.sha256Hex))
            if let name = part.initPacketName {
                rows.append(("init packet", "\(name), \(part.initPacketSize) bytes"))
            } else {
                rows.append(("init packet", "none"))
            }
            rows += initRows(part.initPacket)
            rows.append(("hash check", part.imageCheck.description))
            rows.append(("signature", part.signature.description))
            if part.bootValidationSignature != .unsigned {
                rows.append(("boot validation signature", part.bootValidationSignature.description))
            }
            let width = (rows.map(\.0.count).max() ?? 0) + 2
            for (label, value) in rows {
                out += "  \(label.padding(width))\(value)\n"
            }
        }
        return out
    }

    private static func initRows(_ contents: InitPacketContents) -> [(String, String)] {
        switch contents {
        case .none:
            return []
        case .secure(let packet):
            var rows: [(String, String)] = []
            rows.append(("  op code", packet.opCode?.description ?? "absent"))
            if let command = packet.initCommand {
                rows.append(("  type", command.firmwareType?.description ?? "absent"))
                rows.append(("  fw_version", command.firmwareVersion.map(version) ?? "absent"))
                rows.append(("  hw_version", command.hardwareVersion.map(version) ?? "absent"))
                rows.append(("  sd_req", list(command.softdeviceRequirements.map { hex($0, digits: 4) })))
                rows.append((
                    "  sizes",
                    "sd \(command.softdeviceSize ?? 0), bl \(command.bootloaderSize ?? 0), app \(command.applicationSize ?? 0)"
                ))
                if let hash = command.hash {
                    rows.append(("  hash", "\(hash.type) \(hash.bytes.hexString)"))
                }
                rows.append(("  is_debug", command.isDebug ? "yes" : "no"))
                for validation in command.bootValidations {
                    rows.append(("  boot validation", "\(validation.type) \(validation.bytes.hexString)".trimmedRight))
                }
            }
            if let signature = packet.signature {
                rows.append(("  signature", "\(signature.type) \(signature.bytes.hexString)"))
            }
            return rows
        case .legacy(let packet):
            var rows: [(String, String)] = []
            if let header = packet.header {
                rows.append(("  device type", hex(header.deviceType, digits: 4)))
                rows.append(("  device revision", hex(header.deviceRevision, digits: 4)))
                rows.append(("  app version", version(header.applicationVersion)))
                rows.append(("  sd_req", list(header.softdeviceRequirements.map { hex($0, digits: 4) })))
            }
            switch packet.integrity {
            case .crc16(let crc):
                rows.append(("  CRC-16", hex(crc, digits: 4)))
            case .sha256(let length, let hash):
                rows.append(("  length", "\(length)"))
                rows.append(("  SHA-256", hash.hexString))
            case .signedSHA256(let length, let hash, let signature):
                rows.append(("  length", "\(length)"))
                rows.append(("  SHA-256", hash.hexString))
                rows.append(("  signature", "ECDSA_P256_SHA256 \(signature.hexString)"))
            }
            return rows
        }
    }

    private static func version(_ value: UInt32) -> String {
        value == .max ? "\(value) (any)" : "\(value)"
    }

    private static func list(_ items: [String]) -> String {
        items.isEmpty ? "none" : items.joined(separator: ", ")
    }

    static func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

extension String {
    /// The string without trailing spaces.
    var trimmedRight: String {
        var copy = Substring(self)
        while copy.last == " " { copy = copy.dropLast() }
        return String(copy)
    }
}
