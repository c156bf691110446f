import Testing

/// One row of a codec's fixture table: the bytes on the wire and what they decode to.
struct CodecFixture<Value: Sendable & Equatable>: Sendable, CustomTestStringConvertible {
    /// What the row shows.
    let note: String
    /// The frame.
    let bytes: [UInt8]
    /// What it decodes to.
    let value: Value

    init(_ note: String, _ bytes: [UInt8], _ value: Value) {
        self.note = note
        self.bytes = bytes
        self.value = value
    }

    var testDescription: String { note }
}

/// One malformed frame a decoder must refuse.
struct MalformedFrame: Sendable, CustomTestStringConvertible {
    /// Why it is malformed.
    let note: String
    /// The frame.
    let bytes: [UInt8]

    init(_ note: String, _ bytes: [UInt8]) {
        self.note = note
        self.bytes = bytes
    }

    var testDescription: String { note }
}
