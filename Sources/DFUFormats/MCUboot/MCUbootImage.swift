/// An MCUboot image read from its bytes: the 32-byte header, the body, the protected and
/// unprotected TLV areas, and whatever follows them (padding and the swap trailer of a padded
/// image).
///
/// The layout and the bounds rules follow mcu-tools/mcuboot: `boot/bootutil/include/bootutil/image.h`
/// (`struct image_header`, `struct image_tlv_info`, `struct image_tlv`, the `IMAGE_F_*` flags and
/// `IMAGE_TLV_*` types) and `boot/bootutil/src/tlv.c` (`bootutil_tlv_iter_begin`: a protected area
/// must be announced by `ih_protect_tlv_size` and have exactly that length; the unprotected
/// area's magic follows it; `bootutil_tlv_iter_next`: every TLV header and value must end inside
/// its area). Every offset is computed in 64 bits and every integer read through ``ByteReader``, which
/// answers nil rather than read past the end, so no input makes the reader trap.
public struct MCUbootImage: Sendable, Hashable {
    /// `IMAGE_MAGIC`.
    public static let magic: UInt32 = 0x96f3_b83d
    /// `IMAGE_MAGIC_V1`, images of MCUboot before 1.0.
    public static let oldMagic: UInt32 = 0x96f3_b83c
    /// `IMAGE_HEADER_SIZE`.
    public static let headerSize = 32
    /// `IMAGE_TLV_PROT_INFO_MAGIC` and `IMAGE_TLV_INFO_MAGIC`.
    public static let protectedInfoMagic: UInt16 = 0x6908
    public static let infoMagic: UInt16 = 0x6907

    /// The name the image is known by (file or zip member), for messages.
    public let name: String
    /// All the bytes, as given.
    public let bytes: [UInt8]
    /// `ih_load_addr`.
    public let loadAddress: UInt32
    /// `ih_hdr_size`: the header with its padding; the body starts here.
    public let headerSize: UInt16
    /// `ih_protect_tlv_size`: the protected TLV area including its 4-byte info header, or 0.
    public let protectedTLVSize: UInt16
    /// `ih_img_size`: the body's size.
    public let imageSize: UInt32
    /// `ih_flags`.
    public let flags: MCUbootImageFlags
    /// `ih_ver`.
    public let version: MCUbootVersion
    /// The TLVs in file order, protected ones first.
    public let tlvs: [MCUbootTLV]
    /// Where the TLV areas end; bytes after this are padding or the swap trailer.
    public let tlvEnd: Int

    /// Reads an image; throws ``MCUbootError`` for anything MCUboot's TLV iterator would refuse.
    public init(bytes: [UInt8], name: String) throws(MCUbootError) {
        self.name = name
        self.bytes = bytes
        let reader = ByteReader(bytes)
        // `struct image_header`: magic, load address, header size, protected TLV size, image size, flags, version
        // (major, minor, revision, build), padding.
        var header = ByteReader(bytes.prefix(Self.headerSize))
        guard bytes.count >= Self.headerSize, let magic = header.readInteger(as: UInt32.self),
              let loadAddress = header.readInteger(as: UInt32.self), let headerSize = header.readInteger(as: UInt16.self),
              let protectedTLVSize = header.readInteger(as: UInt16.self), let imageSize = header.readInteger(as: UInt32.self),
              let flags = header.readInteger(as: UInt32.self), let major = header.readByte(), let minor = header.readByte(),
              let revision = header.readInteger(as: UInt16.self), let build = header.readInteger(as: UInt32.self)
        else {
            if let magic = reader.getInteger(at: 0, as: UInt32.self), magic != Self.magic, magic != Self.oldMagic {
                throw .notAnImage(name: name)
            }
            throw .truncated(name: name, part: "32-byte header", needed: UInt64(Self.headerSize), size: bytes.count)
        }
        if magic == Self.oldMagic {
            throw .malformed(name: name, cause: "the magic 0x96f3b83c is of the pre-1.0 MCUboot format, which MCUboot no longer reads")
        }
        guard magic == Self.magic else { throw .notAnImage(name: name) }
        self.loadAddress = loadAddress
        self.headerSize = headerSize
        self.protectedTLVSize = protectedTLVSize
        self.imageSize = imageSize
        self.flags = MCUbootImageFlags(rawValue: flags)
        version = MCUbootVersion(major: major, minor: minor, revision: revision, build: build)
        guard Int(headerSize) >= Self.headerSize else {
            throw .malformed(name: name, cause: "the header size field is \(headerSize), less than the 32-byte header")
        }
        let size = UInt64(bytes.count)
        let bodyEnd = UInt64(headerSize) + UInt64(imageSize)
        guard bodyEnd <= size else {
            throw .truncated(name: name, part: "header and body (\(headerSize) + \(imageSize) bytes)", needed: bodyEnd, size: bytes.count)
        }
        (tlvs, tlvEnd) = try Self.tlvAreas(bytes, bodyEnd: bodyEnd, protectedTLVSize: protectedTLVSize, name: name)
    }

    /// The TLV areas after the body (`bootutil_tlv_iter_begin` in tlv.c): the protected one when the header
    /// announces it, then the unprotected one; their entries and where they end.
    private static func tlvAreas(_ bytes: [UInt8], bodyEnd: UInt64, protectedTLVSize: UInt16, name: String)
        throws(MCUbootError) -> (tlvs: [MCUbootTLV], end: Int)
    {
        var tlvs: [MCUbootTLV] = []
        var offset = bodyEnd
        let first = try infoHeader(bytes, at: offset, part: "TLV info header after the body", name: name)
        if first.magic == Self.protectedInfoMagic {
            guard first.total == protectedTLVSize else {
                throw .malformed(
                    name: name,
                    cause: "the protected TLV area is \(first.total) bytes long, but the header says \(protectedTLVSize)")
            }
            let area = try entries(bytes, at: offset, total: first.total, protected: true, name: name)
            tlvs += area.tlvs
            offset = area.end
        } else if protectedTLVSize != 0 {
            throw .malformed(
                name: name,
                cause: "the header announces \(protectedTLVSize) bytes of protected TLVs, but the magic after the body is 0x\(String(first.magic, radix: 16)), not 0x6908")
        }
        let info = try infoHeader(bytes, at: offset, part: "TLV info header", name: name)
        guard info.magic == Self.infoMagic else {
            throw .malformed(name: name, cause: "the TLV info magic at byte \(offset) is 0x\(String(info.magic, radix: 16)), not 0x6907")
        }
        let area = try entries(bytes, at: offset, total: info.total, protected: false, name: name)
        return (tlvs + area.tlvs, Int(area.end))
    }

    /// A TLV area's 4-byte info header (`struct image_tlv_info`: magic, total length) at `offset`.
    private static func infoHeader(_ bytes: [UInt8], at offset: UInt64, part: String, name: String)
        throws(MCUbootError) -> (magic: UInt16, total: UInt16)
    {
        let end = offset + 4
        let reader = ByteReader(bytes)
        guard end <= UInt64(bytes.count), let magic = reader.getInteger(at: Int(offset), as: UInt16.self),
              let total = reader.getInteger(at: Int(offset) + 2, as: UInt16.self) else {
            throw .truncated(name: name, part: part, needed: end, size: bytes.count)
        }
        return (magic, total)
    }

    /// The entries of the TLV area whose info header is at `offset` and whose length (header included) is `total`.
    private static func entries(_ bytes: [UInt8], at offset: UInt64, total: UInt16, protected: Bool, name: String)
        throws(MCUbootError) -> (tlvs: [MCUbootTLV], end: UInt64)
    {
        let label = protected ? "protected TLV area" : "TLV area"
        guard total >= 4 else {
            throw .malformed(name: name, cause: "the \(label)'s length \(total) is shorter than its own 4-byte info header")
        }
        let areaEnd = offset + UInt64(total)
        guard areaEnd <= UInt64(bytes.count) else {
            throw .truncated(name: name, part: label, needed: areaEnd, size: bytes.count)
        }
        return (try Self.entries(bytes, from: offset + 4, to: areaEnd, protected: protected, name: name), areaEnd)
    }

    /// Whether `bytes` start with MCUboot's image magic (or its pre-1.0 one).
    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        ByteReader(bytes).getInteger(at: 0, as: UInt32.self).map { $0 == magic || $0 == oldMagic } ?? false
    }

    /// The bytes MCUboot hashes: header (with its padding), body and protected TLV area
    /// (mcuboot `boot/bootutil/src/bootutil_img_hash.c`, `bootutil_img_hash`: `ih_hdr_size` +
    /// `ih_img_size` + `ih_protect_tlv_size` bytes from the start of the slot).
    public var hashedBytes: ArraySlice<UInt8> {
        bytes[0..<(Int(headerSize) + Int(imageSize) + Int(protectedTLVSize))]
    }

    /// The body: the firmware itself (ciphertext when the image is encrypted).
    public var body: ArraySlice<UInt8> { bytes[Int(headerSize)..<(Int(headerSize) + Int(imageSize))] }

    /// The first TLV of a type, if any.
    public func tlv(_ type: UInt16) -> MCUbootTLV? { tlvs.first { $0.type == type } }

    /// The SHA256 TLV's value: the image's hash as MCUboot and SMP's image list name it, nil
    /// when absent. Zephyr's image management reads this TLV from the slot, not a hash of the
    /// file (zephyrproject-rtos/zephyr `subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt.c`,
    /// `img_mgmt_read_info`), so it is what an image list's `hash` is compared with.
    public var imageHash: [UInt8]? { tlv(MCUbootTLV.sha256)?.value }

    /// The KEYHASH TLV's value, nil when absent.
    public var keyHash: [UInt8]? { tlv(MCUbootTLV.keyHash)?.value }

    /// The security counter (SEC_CNT TLV, a u32), nil when absent or not 4 bytes.
    public var securityCounter: UInt32? {
        guard let value = tlv(MCUbootTLV.securityCounter)?.value, value.count == 4 else { return nil }
        return ByteReader(value).getInteger(at: 0, as: UInt32.self)
    }

    /// The state recorded in the swap trailer of an image padded to its slot (`imgtool sign
    /// --pad`), nil when the image does not end with the trailer's magic.
    ///
    /// imgtool (`scripts/imgtool/image.py`, `pad_to`) ends the slot with MCUboot's 16-byte boot
    /// magic (`boot/bootutil/src/bootutil_public.c`, `boot_img_magic`) and, with `--confirm`,
    /// writes 0x01 into `image_ok`, 8 bytes before the magic (for the default 8-byte alignment).
    public var trailer: MCUbootTrailer? {
        guard bytes.count - tlvEnd >= 24, bytes.suffix(16).elementsEqual(MCUbootTrailer.bootMagic) else { return nil }
        return bytes[bytes.count - 24] == 0x01 ? .confirmed : .notConfirmed
    }

    /// Reads the TLVs between `start` and `end` (both inside `bytes`).
    private static func entries(_ bytes: [UInt8], from start: UInt64, to end: UInt64, protected: Bool, name: String) throws(MCUbootError) -> [MCUbootTLV] {
        var out: [MCUbootTLV] = []
        let reader = ByteReader(bytes)
        var offset = start
        let area = protected ? "protected TLV area" : "TLV area"
        while offset < end {
            guard end - offset >= 4, let type = reader.getInteger(at: Int(offset), as: UInt16.self),
                  let length = reader.getInteger(at: Int(offset) + 2, as: UInt16.self) else {
                throw .malformed(name: name, cause: "a TLV header at byte \(offset) runs past the end of the \(area) (byte \(end))")
            }
            guard UInt64(length) <= end - offset - 4 else {
                throw .malformed(
                    name: name,
                    cause: "the \(MCUbootTLV(type: type, value: [], isProtected: protected, offset: 0).name) TLV at byte \(offset) is \(length) bytes long and runs past the end of the \(area) (byte \(end))")
            }
            let valueStart = Int(offset) + 4
            out.append(MCUbootTLV(type: type, value: Array(bytes[valueStart..<(valueStart + Int(length))]), isProtected: protected, offset: valueStart))
            offset += 4 + UInt64(length)
        }
        return out
    }
}
