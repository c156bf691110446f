import DFUCore
import DFUCrypto
import DFUFormats

/// Builders for the bytes tests need: protobuf fields, Secure init packets and whole packages.
enum Proto {
    /// A base-128 varint.
    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            out.append(value == 0 ? low : low | 0x80)
        } while value != 0
        return out
    }

    /// A varint field: tag (wire type 0) then the value.
    static func uint(_ field: UInt64, _ value: UInt64) -> [UInt8] {
        varint(field << 3) + varint(value)
    }

    /// A length-delimited field: tag (wire type 2), length, bytes.
    static func bytes(_ field: UInt64, _ payload: [UInt8]) -> [UInt8] {
        varint(field << 3 | 2) + varint(UInt64(payload.count)) + payload
    }
}

/// The fields of a Secure `InitCommand` to encode; nil fields are left out.
struct InitCommandFields {
    var fwVersion: UInt64? = 1
    var hwVersion: UInt64? = 52
    var sdReq: [UInt64] = [0x100]
    var type: UInt64? = 0
    var sdSize: UInt64? = 0
    var blSize: UInt64? = 0
    var appSize: UInt64? = nil
    var hashType: UInt64 = 3
    var hash: [UInt8]? = nil
    var isDebug: Bool? = false

    /// Fields describing `image` as part `kind`, with nrfutil's little-endian SHA-256.
    static func describing(_ image: [UInt8], as kind: PartKind, sd: UInt64 = 0, bl: UInt64 = 0) -> InitCommandFields {
        var fields = InitCommandFields()
        fields.type = UInt64(SecureInitPacket.FirmwareType(kind).rawValue)
        fields.appSize = kind == .application ? UInt64(image.count) : 0
        fields.sdSize = kind == .softdevice ? UInt64(image.count) : sd
        fields.blSize = kind == .bootloader ? UInt64(image.count) : bl
        fields.hash = SHA256.digest(image).reversed()
        return fields
    }

    /// The serialized `InitCommand` (sd_req packed, as nrfutil writes it).
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        if let fwVersion { out += Proto.uint(1, fwVersion) }
        if let hwVersion { out += Proto.uint(2, hwVersion) }
        if !sdReq.isEmpty { out += Proto.bytes(3, sdReq.flatMap(Proto.varint)) }
        if let type { out += Proto.uint(4, type) }
        if let sdSize { out += Proto.uint(5, sdSize) }
        if let blSize { out += Proto.uint(6, blSize) }
        if let appSize { out += Proto.uint(7, appSize) }
        if let hash { out += Proto.bytes(8, Proto.uint(1, hashType) + Proto.bytes(2, hash)) }
        if let isDebug { out += Proto.uint(9, isDebug ? 1 : 0) }
        return out
    }

    /// An unsigned `Packet { command { op_code INIT, init {…} } }`.
    func unsignedPacket() -> [UInt8] {
        Proto.bytes(1, Proto.uint(1, 1) + Proto.bytes(2, encoded()))
    }
}

/// Zip entries of small packages.
enum TestPackages {
    /// A word-aligned image of `count` bytes with a recognisable pattern.
    static func image(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    /// A Secure application package: manifest, `app.bin`, `app.dat` (unsigned).
    static func secureApplication(image: [UInt8] = image(64), fields: InitCommandFields? = nil) -> [String: [UInt8]] {
        let fields = fields ?? .describing(image, as: .application)
        return [
            "manifest.json": Array(#"{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"}}}"#.utf8),
            "app.bin": image,
            "app.dat": fields.unsignedPacket(),
        ]
    }

    /// A Secure SoftDevice+bootloader package plus application, sizes under `info_read_only_metadata`.
    static func secureSystemAndApplication() -> [String: [UInt8]] {
        let system = image(96, seed: 9)
        let app = image(32, seed: 3)
        return [
            "manifest.json": Array(
                #"""
                {"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"},
                "softdevice_bootloader":{"bin_file":"sd_bl.bin","dat_file":"sd_bl.dat",
                "info_read_only_metadata":{"sd_size":64,"bl_size":32}}}}
                """#.utf8),
            "sd_bl.bin": system,
            "sd_bl.dat": InitCommandFields.describing(system, as: .softdeviceBootloader, sd: 64, bl: 32).unsignedPacket(),
            "app.bin": app,
            "app.dat": InitCommandFields.describing(app, as: .application).unsignedPacket(),
        ]
    }

    /// A Legacy application package (dfu_version 0.5, 14-byte extended init packet with CRC-16).
    static func legacyApplication(image: [UInt8] = image(64), crc: UInt16? = nil) -> [String: [UInt8]] {
        let crc = crc ?? CRC16.checksum(image)
        let dat: [UInt8] = [
            0xFF, 0xFF,  // device type: any
            0xFF, 0xFF,  // device revision: any
            0xFF, 0xFF, 0xFF, 0xFF,  // application version: any
            0x01, 0x00,  // one SoftDevice requirement
            0xFE, 0xFF,  // 0xFFFE: any SoftDevice
            UInt8(crc & 0xFF), UInt8(crc >> 8),  // CRC-16 of the image
        ]
        return [
            "manifest.json": Array(
                #"{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat","init_packet_data":{}},"dfu_version":0.5}}"#.utf8),
            "app.bin": image,
            "app.dat": dat,
        ]
    }
}
