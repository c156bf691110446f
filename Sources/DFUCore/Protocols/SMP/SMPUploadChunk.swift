public import CBOR

/// The body of one image upload request (zephyr `smp_group_1.rst`, "Image upload request";
/// decoded by `img_mgmt_upload` in `subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt.c`):
/// `{"image", "len", "off", "sha", "data", "upgrade"}`, where `image`, `len`, `sha` and `upgrade`
/// belong in the first chunk only (offset 0) and `sha` is the SHA-256 of the whole file, which
/// lets the server resume an interrupted upload of the same file.
public struct SMPUploadChunk: Sendable, Hashable, CustomStringConvertible {
    /// The image number (absent: 0); first chunk only.
    public var image: Int?
    /// The whole image's length; required in the first chunk.
    public var length: Int?
    /// Where `data` goes.
    public var offset: Int
    /// SHA-256 of the whole file; first chunk only.
    public var sha: [UInt8]?
    /// The bytes at `offset`.
    public var data: [UInt8]
    /// Only accept a newer version than the running one; first chunk only.
    public var upgrade: Bool?

    /// A chunk.
    public init(image: Int? = nil, length: Int? = nil, offset: Int, sha: [UInt8]? = nil, data: [UInt8],
                upgrade: Bool? = nil) {
        self.image = image
        self.length = length
        self.offset = offset
        self.sha = sha
        self.data = data
        self.upgrade = upgrade
    }

    /// The CBOR map, keys in the order of Zephyr's documentation; absent fields are left out.
    public var body: CBOR {
        var entries: [CBOR.Entry] = []
        if let image { entries.append(CBOR.Entry(.text("image"), .int(image))) }
        if let length { entries.append(CBOR.Entry(.text("len"), .int(length))) }
        entries.append(CBOR.Entry(.text("off"), .int(offset)))
        if let sha { entries.append(CBOR.Entry(.text("sha"), .bytes(sha))) }
        entries.append(CBOR.Entry(.text("data"), .bytes(data)))
        if let upgrade { entries.append(CBOR.Entry(.text("upgrade"), .bool(upgrade))) }
        return .map(entries)
    }

    /// Reads a chunk back from a request body (for simulated servers and tests).
    public init(body: CBOR) throws(SMPResponse.DecodingError) {
        guard case .map = body else { throw .wrongType(field: "body", found: body.description) }
        image = try body.optionalInt("image")
        length = try body.optionalInt("len")
        guard let offset = try body.optionalInt("off") else { throw .missingField("off") }
        self.offset = offset
        sha = try body.optionalBytes("sha")
        guard let data = try body.optionalBytes("data") else { throw .missingField("data") }
        self.data = data
        upgrade = try body.optionalBool("upgrade")
    }

    /// The most data bytes a chunk with these other fields can carry in a frame of at most
    /// `frameLimit` bytes (header included); 0 when not even one byte fits. Exact: the CBOR
    /// encoding of the fields around `data`, and the byte string's own head (1, 2 or 3 bytes up
    /// to 65 535), are counted.
    public func maxDataLength(frameLimit: Int) -> Int {
        guard let overhead = bodySizeWithoutData else { return 0 }
        return Self.dataLength(room: frameLimit - SMPHeader.size - overhead)
    }

    /// The encoded body's size with `data` empty: the fields around the data and a 1-byte head for the empty
    /// byte string; nil when it cannot be encoded.
    private var bodySizeWithoutData: Int? {
        var empty = self
        empty.data = []
        return try? empty.body.encoded().count
    }

    /// The most data bytes that fit in `room` bytes beyond an empty chunk's body: a longer byte string's
    /// head takes 1 (24–255 bytes) or 2 (256–65 535) bytes more than the empty one's.
    private static func dataLength(room: Int) -> Int {
        guard room > 0 else { return 0 }
        for extra in 0...2 {
            let n = room - extra
            let needed = n < 24 ? 0 : n < 256 ? 1 : 2
            if n > 0, needed <= extra { return min(n, Int(UInt16.max)) }
        }
        return 0
    }

    /// The smallest frame (header included) whose first chunk carries the 32-byte image header, which Zephyr
    /// requires in it (`img_mgmt_upload_inspect`: a shorter first chunk is IMG_MGMT_ERR_INVALID_IMAGE_HEADER),
    /// with every first-chunk field at its longest: image 15, a length up to 4 GiB, the file's SHA-256, upgrade.
    /// `--smp-chunk` is checked against it with the other options, before anything connects. The body is encoded
    /// once (those fixed fields are well within CBOR's limits), the frame sizes are then counted.
    public static let smallestFirstFrame: Int = {
        let first = SMPUploadChunk(image: 15, length: Int(UInt32.max), offset: 0, sha: [UInt8](repeating: 0, count: 32),
                                   data: [], upgrade: true)
        let overhead = first.bodySizeWithoutData ?? 0
        var limit = SMPHeader.size
        while dataLength(room: limit - SMPHeader.size - overhead) < 32 { limit += 1 }
        return limit
    }()

    /// e.g. "off 4096, 2380 bytes (first: image 0, len 150000, sha)".
    public var description: String {
        var text = "off \(offset), \(data.count) bytes"
        var first: [String] = []
        if let image { first.append("image \(image)") }
        if let length { first.append("len \(length)") }
        if sha != nil { first.append("sha") }
        if let upgrade { first.append("upgrade \(upgrade)") }
        if !first.isEmpty { text += " (" + first.joined(separator: ", ") + ")" }
        return text
    }
}
