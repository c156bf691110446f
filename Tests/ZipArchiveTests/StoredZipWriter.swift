import DFUCrypto

/// A tiny zip writer for tests: builds archives byte by byte, including deliberately broken ones.
///
/// Entries are stored (method 0) or wrapped in deflate *stored blocks* (method 8 with BTYPE 00),
/// which lets a test declare one size and deliver another, as a zip bomb does.
struct StoredZipWriter {
    struct Entry {
        var name: String
        var data: [UInt8]
        /// The uncompressed size written in both headers; the real size when nil.
        var declaredSize: UInt32? = nil
        /// Method 8 (deflate, stored blocks) instead of method 0.
        var deflate = false
    }

    var entries: [Entry] = []

    mutating func add(_ name: String, _ data: [UInt8], declaredSize: UInt32? = nil, deflate: Bool = false) {
        entries.append(Entry(name: name, data: data, declaredSize: declaredSize, deflate: deflate))
    }

    mutating func add(_ name: String, _ text: String) {
        add(name, Array(text.utf8))
    }

    /// The whole archive: local headers and data, central directory, end record.
    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let payload = entry.deflate ? Self.deflateStoredBlocks(entry.data) : entry.data
            let crc = CRC32.checksum(entry.data)
            let size = entry.declaredSize ?? UInt32(entry.data.count)
            let name = Array(entry.name.utf8)
            let method: UInt16 = entry.deflate ? 8 : 0

            out.le32(0x0403_4B50)  // local file header signature "PK\3\4"
            out.le16(20)  // version needed to extract: 2.0
            out.le16(0)  // general purpose flags
            out.le16(method)  // compression method
            out.le16(0)  // modification time
            out.le16(0x21)  // modification date (1980-01-01)
            out.le32(crc)  // CRC-32 of the uncompressed data
            out.le32(UInt32(payload.count))  // compressed size
            out.le32(size)  // uncompressed size (possibly a lie)
            out.le16(UInt16(name.count))  // file name length
            out.le16(0)  // extra field length
            out += name
            out += payload

            central.le32(0x0201_4B50)  // central directory header signature "PK\1\2"
            central.le16(20)  // version made by
            central.le16(20)  // version needed
            central.le16(0)  // flags
            central.le16(method)  // method
            central.le16(0)  // time
            central.le16(0x21)  // date
            central.le32(crc)  // CRC-32
            central.le32(UInt32(payload.count))  // compressed size
            central.le32(size)  // uncompressed size
            central.le16(UInt16(name.count))  // name length
            central.le16(0)  // extra length
            central.le16(0)  // comment length
            central.le16(0)  // disk number start
            central.le16(0)  // internal attributes
            central.le32(0)  // external attributes
            central.le32(offset)  // offset of the local header
            central += name
        }
        let centralOffset = UInt32(out.count)
        out += central
        out.le32(0x0605_4B50)  // end of central directory signature "PK\5\6"
        out.le16(0)  // this disk
        out.le16(0)  // disk with the central directory
        out.le16(UInt16(entries.count))  // entries on this disk
        out.le16(UInt16(entries.count))  // entries in total
        out.le32(UInt32(central.count))  // central directory size
        out.le32(centralOffset)  // central directory offset
        out.le16(0)  // comment length
        return out
    }

    /// Deflate data made only of stored blocks (BTYPE 00), each at most 65535 bytes.
    static func deflateStoredBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + 65535, data.count)
            let isLast = end == data.count
            out.append(isLast ? 0x01 : 0x00)  // BFINAL bit, BTYPE 00 (stored)
            let length = UInt16(end - start)
            out.le16(length)  // LEN
            out.le16(~length)  // NLEN
            out += data[start..<end]
            start = end
        } while start < data.count
        return out
    }
}

extension [UInt8] {
    mutating func le16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func le32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
