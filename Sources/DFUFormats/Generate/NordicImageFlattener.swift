/// Turns a firmware file into the flat image nrfutil 6.1.7 puts into a package
/// (`nordicsemi/dfu/nrfhex.py`, class `nRFHex`).
///
/// - A file whose name ends in `.bin` is taken as it is (from address 0).
/// - Any other file is read as Intel HEX; everything at or above 0x10000000 (UICR, FICR) and
///   below 0x1000 (the MBR) is dropped (`_removeuicr`, `_removembr`); the image starts at the
///   lowest address left, but not below the end of the MBR: 0x1000, or 0x3000 when the file holds an
///   s132 SoftDevice, recognised by its info-structure magic 0x51B1E5DB at 0x4004, 0x5004,
///   0x6004 or 0x7004 and not at 0x3004 (`get_softdevice_variant`, `minaddr`).
/// - The image runs to the highest address, gaps filled with 0xFF, and is padded with 0xFF to a
///   whole number of 4-byte words (`size`, `tobinfile`).
public enum NordicImageFlattener {
    /// The largest image made (16 MiB, the largest entry `dfu` reads back from a package).
    public static let maximumImageSize = IntelHex.maximumImageSize

    static let uicrStart: UInt64 = 0x1000_0000
    static let mbrEnd: UInt64 = 0x1000
    static let s132MBREnd: UInt64 = 0x3000
    static let infoStructMagic: [UInt8] = [0xDB, 0xE5, 0xB1, 0x51]  // 0x51B1E5DB, little-endian

    /// Whether nrfutil reads the file named `name` as a raw binary (else as Intel HEX).
    public static func isBinary(_ name: String) -> Bool { name.hasSuffix(".bin") }

    /// The flat image of the file `name` with contents `bytes`.
    public static func image(name: String, bytes: [UInt8]) throws(PackageGenerationError) -> [UInt8] {
        if isBinary(name) {
            guard !bytes.isEmpty else { throw .data(name: name, "the file is empty") }
            guard bytes.count <= maximumImageSize else {
                throw .data(.imageTooLarge(name: name, size: UInt64(bytes.count), limit: maximumImageSize))
            }
            return padded(bytes)
        }
        let hex: IntelHex
        do { hex = try IntelHex(text: bytes, name: name) } catch { throw .data(error) }
        var kept: [(address: UInt64, bytes: ArraySlice<UInt8>)] = []
        for segment in hex.segments {
            let start = max(UInt64(segment.address), mbrEnd)
            let end = min(segment.endAddress, uicrStart)
            guard start < end else { continue }
            let offset = Int(start - UInt64(segment.address))
            kept.append((start, segment.bytes[offset..<(offset + Int(end - start))]))
        }
        guard let last = kept.last, let first = kept.first else {
            throw .data(name: name, "the HEX file holds no data between 0x1000 and 0x10000000")
        }
        func byte(at address: UInt64) -> UInt8? {
            for piece in kept where piece.address <= address && address < piece.address + UInt64(piece.bytes.count) {
                return piece.bytes[piece.bytes.startIndex + Int(address - piece.address)]
            }
            return nil
        }
        func hasMagic(at address: UInt64) -> Bool {
            (0..<4).allSatisfy { byte(at: address + UInt64($0)) == infoStructMagic[$0] }
        }
        let isS132 = !hasMagic(at: 0x3004) && (1...4).contains { hasMagic(at: 0x3004 + UInt64($0) * 0x1000) }
        let start = max(first.address, isS132 ? s132MBREnd : mbrEnd)
        let end = last.address + UInt64(last.bytes.count)
        guard start < end else { throw .data(name: name, "the HEX file holds no data above its MBR") }
        guard end - start <= UInt64(maximumImageSize) else {
            throw .data(.imageTooLarge(name: name, size: end - start, limit: maximumImageSize))
        }
        var image = [UInt8](repeating: 0xFF, count: Int(end - start))
        for piece in kept where piece.address + UInt64(piece.bytes.count) > start {
            let skip = piece.address < start ? Int(start - piece.address) : 0
            let at = Int(piece.address + UInt64(skip) - start)
            let bytes = piece.bytes.dropFirst(skip)
            image.replaceSubrange(at..<(at + bytes.count), with: bytes)
        }
        return padded(image)
    }

    private static func padded(_ bytes: [UInt8]) -> [UInt8] {
        let remainder = bytes.count % 4
        return remainder == 0 ? bytes : bytes + [UInt8](repeating: 0xFF, count: 4 - remainder)
    }
}
