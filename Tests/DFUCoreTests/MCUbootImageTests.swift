import DFUCore
import DFUCrypto
import Testing
import DFUFormats

/// The reader on hand-made images: the header, both TLV areas, and every bound MCUboot's TLV
/// iterator (mcuboot boot/bootutil/src/tlv.c) enforces.
@Suite struct MCUbootImageTests {
    /// A minimal image: 32-byte header (hdr_size 0x20), a 4-byte body, an optional protected
    /// area, then the TLV area with a SHA256 TLV over header + body + protected area.
    static func image(body: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF], protected: [UInt8] = [], flags: UInt32 = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes += le32(0x96f3_b83d)  // ih_magic
        bytes += le32(0x0001_0000)  // ih_load_addr
        bytes += le16(0x20)  // ih_hdr_size
        bytes += le16(UInt16(protected.isEmpty ? 0 : protected.count + 4))  // ih_protect_tlv_size
        bytes += le32(UInt32(body.count))  // ih_img_size
        bytes += le32(flags)  // ih_flags
        bytes += [1, 2] + le16(3) + le32(4)  // ih_ver 1.2.3+4
        bytes += le32(0)  // _pad1
        bytes += body
        if !protected.isEmpty {
            bytes += le16(0x6908) + le16(UInt16(protected.count + 4)) + protected
        }
        let digest = SHA256.digest(bytes)
        bytes += le16(0x6907) + le16(4 + 4 + 32)  // TLV info: magic, total length
        bytes += [0x10, 0x00] + le16(32) + digest  // SHA256 TLV
        return bytes
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    @Test func minimalImageIsReadField() throws {
        let image = try MCUbootImage(bytes: Self.image(), name: "a.bin")
        #expect(image.loadAddress == 0x10000)
        #expect(image.headerSize == 0x20)
        #expect(image.imageSize == 4)
        #expect(image.version.description == "1.2.3+4")
        #expect(Array(image.body) == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(image.tlvs.map(\.name) == ["SHA256"])
        #expect(MCUbootImageReport(image: image).hashCheck == .matches)
        #expect(MCUbootImageReport(image: image).signature == .unsigned)
    }

    @Test func protectedTLVsAreHashed() throws {
        // SEC_CNT (0x50), 4 bytes: 9.
        let protected: [UInt8] = [0x50, 0x00] + Self.le16(4) + Self.le32(9)
        var bytes = Self.image(protected: protected)
        #expect(MCUbootImageReport(image: try MCUbootImage(bytes: bytes, name: "p.bin")).hashCheck == .matches)
        bytes[0x20 + 4 + 4 + 4] ^= 1  // the counter's value
        let changed = try MCUbootImage(bytes: bytes, name: "p.bin")
        #expect(changed.securityCounter == 8)
        #expect(MCUbootImageReport(image: changed).hashCheck == .mismatch)
    }

    @Test func everyPrefixShorterThanTheTLVAreaIsRefusedAndNoneTraps() {
        let full = Self.image(protected: [0x50, 0x00] + Self.le16(4) + Self.le32(1))
        for length in 0..<full.count {
            #expect(throws: MCUbootError.self) { try MCUbootImage(bytes: Array(full.prefix(length)), name: "t.bin") }
        }
        #expect((try? MCUbootImage(bytes: full, name: "t.bin")) != nil)
    }

    @Test func everySingleByteChangeIsRefusedOrMismatchesOrIsOutsideTheHash() throws {
        let full = Self.image()
        for index in full.indices {
            var bytes = full
            bytes[index] ^= 0x5A
            guard let image = try? MCUbootImage(bytes: bytes, name: "f.bin") else { continue }
            let check = MCUbootImageReport(image: image).hashCheck
            if image.flags.isEncrypted {
                // A flag byte now says "encrypted": the hash covers a plaintext only the device can
                // make, so it is shown as not checkable (MCUboot itself then fails to decrypt).
                #expect(check.isOK == nil, "byte \(index)")
            } else if index < image.hashedBytes.count || index >= image.tlvEnd - 32 {
                // Header, body, or the hash itself changed.
                #expect(check == .mismatch, "byte \(index)")
            }
        }
    }

    @Test func headerSizeBelow32IsMalformed() {
        var bytes = Self.image()
        bytes[8] = 0x1F
        #expect(throws: MCUbootError.malformed(name: "h.bin", cause: "the header size field is 31, less than the 32-byte header")) {
            try MCUbootImage(bytes: bytes, name: "h.bin")
        }
    }

    @Test func imageSizeBeyondTheFileIsTruncation() {
        var bytes = Self.image()
        bytes[12...15] = [0xFF, 0xFF, 0xFF, 0xFF]  // ih_img_size 4 GiB - 1
        #expect(throws: MCUbootError.truncated(name: "s.bin", part: "header and body (32 + 4294967295 bytes)", needed: 32 + 0xFFFF_FFFF, size: bytes.count)) {
            try MCUbootImage(bytes: bytes, name: "s.bin")
        }
    }

    @Test func protectedSizeWithoutProtectedAreaIsMalformed() {
        var bytes = Self.image()
        bytes[10] = 8  // ih_protect_tlv_size 8, but 0x6907 follows the body
        #expect(throws: MCUbootError.self) { try MCUbootImage(bytes: bytes, name: "p.bin") }
    }

    @Test func protectedAreaLengthMustEqualTheHeaders() {
        var bytes = Self.image(protected: [0x50, 0x00] + Self.le16(4) + Self.le32(1))
        bytes[10] = 16  // header says 16, area says 12
        #expect(throws: MCUbootError.malformed(name: "p.bin", cause: "the protected TLV area is 12 bytes long, but the header says 16")) {
            try MCUbootImage(bytes: bytes, name: "p.bin")
        }
    }

    @Test func tlvRunningPastItsAreaIsMalformed() {
        var bytes = Self.image()
        let sha = bytes.count - 32 - 4
        bytes[sha + 2] = 33  // SHA256 TLV claims 33 bytes; the area holds 32
        #expect(throws: MCUbootError.self) { try MCUbootImage(bytes: bytes, name: "o.bin") }
    }

    @Test func tlvAreaShorterThanItsInfoHeaderIsMalformed() {
        var bytes = Self.image()
        let info = bytes.count - 32 - 4 - 4
        bytes[info + 2] = 3
        bytes[info + 3] = 0
        #expect(throws: MCUbootError.malformed(name: "i.bin", cause: "the TLV area's length 3 is shorter than its own 4-byte info header")) {
            try MCUbootImage(bytes: bytes, name: "i.bin")
        }
    }

    @Test func preVersion1MagicIsNamed() {
        var bytes = Self.image()
        bytes[0] = 0x3C
        #expect(throws: MCUbootError.malformed(name: "v1.bin", cause: "the magic 0x96f3b83c is of the pre-1.0 MCUboot format, which MCUboot no longer reads")) {
            try MCUbootImage(bytes: bytes, name: "v1.bin")
        }
    }

    @Test func imageWithoutHashTLVIsRefused() throws {
        var bytes = Self.image()
        let sha = bytes.count - 32 - 4
        bytes[sha] = 0xA5  // the SHA256 TLV becomes an unknown vendor tag
        let report = MCUbootImageReport(image: try MCUbootImage(bytes: bytes, name: "n.bin"))
        #expect(report.image.tlvs.map(\.name) == ["unknown tag 0xa5"])
        #expect(throws: MCUbootError.missingHash(name: "n.bin")) { try report.check(keyWasGiven: false) }
    }

    @Test func encryptedImagesHashIsNotCheckable() throws {
        let report = MCUbootImageReport(image: try MCUbootImage(bytes: Self.image(flags: 0x04), name: "e.bin"))
        #expect(report.hashCheck.isOK == nil)
        try report.check(keyWasGiven: false)
    }

    @Test func flagsAreNamed() {
        #expect(MCUbootImageFlags(rawValue: 0x14).description == "0x00000014 (ENCRYPTED_AES128, NON_BOOTABLE)")
        #expect(MCUbootImageFlags(rawValue: 0x8000_0000).names == ["0x80000000"])
        #expect(MCUbootImageFlags(rawValue: 0).description == "0x00000000")
    }

    @Test func notAnImage() {
        #expect(throws: MCUbootError.notAnImage(name: "x.bin")) { try MCUbootImage(bytes: [0x00, 0x20, 0x00, 0x20] + [UInt8](repeating: 0, count: 60), name: "x.bin") }
        #expect(!MCUbootImage.hasMagic([0x3D, 0xB8]))
    }
}
