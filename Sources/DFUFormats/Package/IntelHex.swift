/// An Intel HEX file, parsed into address-ordered data, and turned into a flat image as nrfutil does.
///
/// Records 00 (data), 01 (end of file), 02 (extended segment address), 03 (start segment
/// address), 04 (extended linear address) and 05 (start linear address) are understood; every
/// record's checksum is checked, and overlapping data is refused.
public struct IntelHex: Sendable, Hashable {
    /// A run of bytes at consecutive addresses.
    public struct Segment: Sendable, Hashable {
        /// The address of the first byte.
        public let address: UInt32
        /// The bytes.
        public let bytes: [UInt8]

        /// Makes a run.
        public init(address: UInt32, bytes: [UInt8]) {
            self.address = address
            self.bytes = bytes
        }

        /// The address just past the last byte.
        public var endAddress: UInt64 { UInt64(address) + UInt64(bytes.count) }
    }

    /// The data, in address order, adjacent runs merged.
    public let segments: [Segment]
    /// The start address from a type 03 (CS:IP as one 32-bit value) or 05 record, if any.
    public let startAddress: UInt32?
    /// The file name, for messages.
    public let name: String

    /// The largest flat image made from a HEX file (16 MiB, the zip entry cap): data far apart
    /// would otherwise make a gap-filled image of up to 4 GiB.
    public static let maximumImageSize = 16 << 20

    /// The Master Boot Record area of nRF5 chips, left out of SoftDevice images.
    public static let mbrRegion: Range<UInt64> = 0..<0x1000
    /// The UICR area of nRF5 chips, never part of an image.
    public static let uicrRegion: Range<UInt64> = 0x1000_1000..<0x1000_2000

    /// Parses the text of a `.hex` file; `name` is used in error messages.
    public init(text: [UInt8], name: String) throws(PackageError) {
        var runs: [(segment: Segment, line: Int)] = []
        var base: UInt64 = 0
        var startAddress: UInt32? = nil
        var sawEnd = false
        var lineNumber = 0
        for rawLine in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty { continue }
            func fail(_ cause: String) -> PackageError { .invalidIntelHex(name: name, line: lineNumber, cause: cause) }
            guard line.first == UInt8(ascii: ":") else { throw fail("the record does not start with ':'") }
            guard let record = Self.decodeHex(line.dropFirst()) else { throw fail("the record is not an even run of hex digits") }
            guard record.count >= 5 else { throw fail("the record is shorter than 5 bytes") }
            let count = Int(record[0])
            guard record.count == count + 5 else { throw fail("the record declares \(count) data bytes but has \(record.count - 5)") }
            guard record.reduce(UInt8(0), &+) == 0 else { throw fail("checksum mismatch") }
            let offset = UInt64(record[1]) << 8 | UInt64(record[2])
            let data = Array(record[4..<(4 + count)])
            switch record[3] {
            case 0x00:
                let address = base + offset
                guard address + UInt64(count) <= UInt64(UInt32.max) + 1 else { throw fail("data runs past 4 GiB") }
                if !data.isEmpty { runs.append((Segment(address: UInt32(address), bytes: data), lineNumber)) }
            case 0x01:
                sawEnd = true
            case 0x02:
                guard count == 2 else { throw fail("an extended segment address record needs 2 data bytes") }
                base = (UInt64(data[0]) << 8 | UInt64(data[1])) << 4
            case 0x04:
                guard count == 2 else { throw fail("an extended linear address record needs 2 data bytes") }
                base = (UInt64(data[0]) << 8 | UInt64(data[1])) << 16
            case 0x03, 0x05:
                guard count == 4 else { throw fail("a start address record needs 4 data bytes") }
                startAddress = data.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            default:
                throw fail("unknown record type \(record[3])")
            }
            if sawEnd { break }
        }
        guard sawEnd else { throw .invalidIntelHex(name: name, line: lineNumber, cause: "the file has no end-of-file record") }
        self.segments = try Self.merge(runs, name: name)
        self.startAddress = startAddress
        self.name = name
    }

    /// The flat image nrfutil would build for a part of `kind`: UICR left out, and for a
    /// SoftDevice (alone or with a bootloader) the MBR too; then from the lowest to the highest
    /// address left, with gaps filled with 0xFF. Throws ``PackageError/imageTooLarge(name:size:limit:)``
    /// when that span exceeds ``maximumImageSize``.
    public func image(for kind: PartKind) throws(PackageError) -> [UInt8] {
        let dropsMBR = kind == .softdevice || kind == .softdeviceBootloader
        var kept: [(address: UInt64, bytes: ArraySlice<UInt8>)] = []
        for segment in segments {
            var pieces = [(UInt64(segment.address), segment.bytes[...])]
            for region in dropsMBR ? [Self.mbrRegion, Self.uicrRegion] : [Self.uicrRegion] {
                pieces = pieces.flatMap { Self.remove(region, from: $0) }
            }
            kept += pieces.filter { !$0.1.isEmpty }.map { (address: $0.0, bytes: $0.1) }
        }
        guard let first = kept.first, let last = kept.last else { return [] }
        let start = first.address
        let span = last.address + UInt64(last.bytes.count) - start
        guard span <= UInt64(Self.maximumImageSize) else {
            throw .imageTooLarge(name: name, size: span, limit: Self.maximumImageSize)
        }
        // Flash is written in words: nrfutil rounds the image up to whole words and fills the end
        // with 0xFF, as it fills gaps (nrfutil nordicsemi/dfu/nrfhex.py, nRFHex.size and tobinfile).
        let words = (Int(span) + 3) / 4 * 4
        var image = [UInt8](repeating: 0xFF, count: words)
        for piece in kept {
            let at = Int(piece.address - start)
            image.replaceSubrange(at..<(at + piece.bytes.count), with: piece.bytes)
        }
        return image
    }

    /// The parts of a run outside `region`.
    private static func remove(
        _ region: Range<UInt64>, from piece: (UInt64, ArraySlice<UInt8>)
    ) -> [(UInt64, ArraySlice<UInt8>)] {
        let (address, bytes) = piece
        let end = address + UInt64(bytes.count)
        guard address < region.upperBound, end > region.lowerBound else { return [piece] }
        var result: [(UInt64, ArraySlice<UInt8>)] = []
        if address < region.lowerBound {
            result.append((address, bytes.prefix(Int(region.lowerBound - address))))
        }
        if end > region.upperBound {
            result.append((region.upperBound, bytes.suffix(Int(end - region.upperBound))))
        }
        return result
    }

    /// Sorts runs by address, joins adjacent ones and refuses overlaps (naming the later line).
    private static func merge(_ runs: [(segment: Segment, line: Int)], name: String) throws(PackageError) -> [Segment] {
        var merged: [Segment] = []
        var address: UInt32 = 0
        var bytes: [UInt8] = []
        for (run, line) in runs.sorted(by: { $0.segment.address < $1.segment.address }) {
            let end = UInt64(address) + UInt64(bytes.count)
            if !bytes.isEmpty && UInt64(run.address) < end {
                throw .invalidIntelHex(
                    name: name, line: line,
                    cause: "data at address 0x\(String(run.address, radix: 16, uppercase: true)) is given twice")
            }
            if !bytes.isEmpty && UInt64(run.address) == end {
                bytes += run.bytes
                continue
            }
            if !bytes.isEmpty { merged.append(Segment(address: address, bytes: bytes)) }
            address = run.address
            bytes = run.bytes
        }
        if !bytes.isEmpty { merged.append(Segment(address: address, bytes: bytes)) }
        return merged
    }

    /// Hex digit pairs to bytes, or nil for an odd count or a non-hex character.
    private static func decodeHex(_ digits: ArraySlice<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var high: UInt8? = nil
        for character in digits {
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let upper = high {
                bytes.append(upper << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}

extension ArraySlice<UInt8> {
    /// The slice without leading and trailing spaces, tabs and carriage returns.
    fileprivate func trimmingWhitespace() -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return [] }
        return self[start...end]
    }
}
