/// Makes a Legacy DFU package as adafruit-nrfutil 0.5.3.post16 does (`nordicsemi/dfu/package.py`,
/// `Package.generate_package`; `init_packet.py`, `Packet.generate_packet`; `manifest.py`), for
/// dfu_version 0.5 and 0.6.
///
/// - Images are flattened as nrfutil 6.1.7 does (``NordicImageFlattener``: adafruit's `nRFHex`
///   keeps data below 0x1000 but starts the image at 0x1000 or 0x3000 all the same); a SoftDevice
///   and a bootloader become one `sd_bl.bin`. Unlike nrfutil 6.1.7, a bootloader and an
///   application may share a package.
/// - The init packet is little-endian: device_type (u16), device_revision (u16),
///   application_version (u32), the number of SoftDevice IDs (u16) and the IDs (u16 each, in the
///   order given), for 0.6 the extended packet id 0 (u32), then the CRC-16/CCITT of the image (u16);
///   a field given as `none` is left out.
/// - `manifest.json`: Python's sorted, indented JSON with `dfu_version` and, per part,
///   `init_packet_data` (and for `sd_bl.bin` the `sd_size` and `bl_size` beside the file names).
/// - Zip order as ``SecurePackageGenerator``: `manifest.json`, then the files newest first.
public enum LegacyPackageGenerator {
    public static func generate(_ request: LegacyPackageRequest) throws(PackageGenerationError) -> GeneratedPackage {
        var names = PackageMemberNames()
        func name(of firmware: SecurePackageRequest.Firmware) throws(PackageGenerationError) -> String {
            try names.binName(of: firmware)
        }
        // (manifest key, bin name, image, sizes of a combined image) in adafruit's processing order.
        var parts: [(key: String, binName: String, image: [UInt8], sizes: (Int, Int)?)] = []
        var created: [GeneratedPackage.File] = []
        var combined: (key: String, binName: String, image: [UInt8], sizes: (Int, Int)?)? = nil
        if let softdevice = request.softdevice, let bootloader = request.bootloader {
            names.reserve("sd_bl.bin", for: "the SoftDevice+bootloader image")
            let sd = try NordicImageFlattener.image(name: softdevice.path, bytes: softdevice.bytes)
            let bl = try NordicImageFlattener.image(name: bootloader.path, bytes: bootloader.bytes)
            combined = ("softdevice_bootloader", "sd_bl.bin", sd + bl, (sd.count, bl.count))
            created.append(.init(name: "sd_bl.bin", bytes: sd + bl))
        }
        if let application = request.application {
            parts.append(("application", try name(of: application), try NordicImageFlattener.image(name: application.path, bytes: application.bytes), nil))
        }
        if let combined {
            parts.append(combined)
        } else {
            if let bootloader = request.bootloader {
                parts.append(("bootloader", try name(of: bootloader), try NordicImageFlattener.image(name: bootloader.path, bytes: bootloader.bytes), nil))
            }
            if let softdevice = request.softdevice {
                parts.append(("softdevice", try name(of: softdevice), try NordicImageFlattener.image(name: softdevice.path, bytes: softdevice.bytes), nil))
            }
        }
        var members: [(key: String, text: String)] = []
        for part in parts {
            let crc = CRC16.checksum(part.image)
            let datName = part.binName.replacingAll(".bin", with: ".dat")
            if part.sizes == nil { created.append(.init(name: part.binName, bytes: part.image)) }
            created.append(.init(name: datName, bytes: initPacket(request, crc: crc)))
            members.append((part.key, manifestEntry(part.key, part.binName, datName, part.sizes, request, crc: crc)))
        }
        let version = request.withExtendedPacketID ? "0.6" : "0.5"
        // Keys in sorted order: application, bootloader, dfu_version, softdevice, softdevice_bootloader.
        members.append(("dfu_version", "        \"dfu_version\": \(version)"))
        members.sort { $0.key < $1.key }
        let manifest = "{\n    \"manifest\": {\n" + members.map(\.text).joined(separator: ",\n") + "\n    }\n}"
        created.append(.init(name: "manifest.json", bytes: Array(manifest.utf8)))
        return GeneratedPackage(files: created.reversed())
    }

    private static func initPacket(_ request: LegacyPackageRequest, crc: UInt16) -> [UInt8] {
        var out: [UInt8] = []
        func u16(_ value: UInt16) { out += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(value >> UInt32(shift) & 0xFF)) } }
        if let value = request.deviceType { u16(value) }
        if let value = request.deviceRevision { u16(value) }
        if let value = request.applicationVersion { u32(value) }
        if let ids = request.softdeviceRequirements {
            u16(UInt16(ids.count))
            ids.forEach(u16)
        }
        if request.withExtendedPacketID { u32(0) }
        u16(crc)
        return out
    }

    /// `"key": {...}` at the manifest's member indentation.
    private static func manifestEntry(
        _ key: String, _ binName: String, _ datName: String, _ sizes: (Int, Int)?, _ request: LegacyPackageRequest, crc: UInt16
    ) -> String {
        var fields: [(String, String)] = [
            ("bin_file", NrfutilManifestWriter.quoted(binName)), ("dat_file", NrfutilManifestWriter.quoted(datName)),
        ]
        if let (sd, bl) = sizes { fields += [("sd_size", String(sd)), ("bl_size", String(bl))] }
        var data: [(String, String)] = [("firmware_crc16", String(crc))]
        if let value = request.applicationVersion { data.append(("application_version", String(value))) }
        if let value = request.deviceRevision { data.append(("device_revision", String(value))) }
        if let value = request.deviceType { data.append(("device_type", String(value))) }
        if request.withExtendedPacketID { data.append(("ext_packet_id", "0")) }
        if let ids = request.softdeviceRequirements {
            data.append(("softdevice_req", ids.isEmpty
                ? "[]" : "[\n" + ids.map { "                    \($0)" }.joined(separator: ",\n") + "\n                ]"))
        }
        let dataText = "{\n" + data.sorted { $0.0 < $1.0 }.map { "                \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n            }"
        fields.append(("init_packet_data", dataText))
        let body = fields.sorted { $0.0 < $1.0 }.map { "            \"\($0.0)\": \($0.1)" }.joined(separator: ",\n")
        return "        \"\(key)\": {\n\(body)\n        }"
    }
}
