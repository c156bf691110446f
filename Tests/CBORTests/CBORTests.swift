import CBOR
import Testing

/// Decoding and encoding through libcbor, with examples from RFC 8949 Appendix A.
@Suite struct CBORRoundTripTests {
    /// (bytes, value): each decodes to the value and the value encodes back to exactly the bytes.
    static let canonical: [(bytes: [UInt8], value: CBOR)] = [
        ([0x00], .unsigned(0)),                                             // 0x00: uint 0
        ([0x17], .unsigned(23)),                                            // 0x17: uint 23, in the head
        ([0x18, 0x18], .unsigned(24)),                                      // 0x18: uint8 follows: 24
        ([0x19, 0x03, 0xE8], .unsigned(1000)),                              // 0x19: uint16 follows: 1000
        ([0x1A, 0x00, 0x0F, 0x42, 0x40], .unsigned(1_000_000)),             // 0x1A: uint32 follows
        ([0x1B, 0x00, 0x00, 0x00, 0xE8, 0xD4, 0xA5, 0x10, 0x00], .unsigned(1_000_000_000_000)),  // 0x1B: uint64
        ([0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .unsigned(.max)),
        ([0x20], .negative(0)),                                             // 0x20: −1
        ([0x29], .negative(9)),                                             // 0x29: −10
        ([0x38, 0x63], .negative(99)),                                      // 0x38: negint8 follows: −100
        ([0x39, 0x03, 0xE7], .negative(999)),                               // 0x39: negint16: −1000
        ([0x40], .bytes([])),                                               // 0x40: empty byte string
        ([0x44, 0x01, 0x02, 0x03, 0x04], .bytes([1, 2, 3, 4])),             // 0x44: 4 bytes follow
        ([0x60], .text("")),                                                // 0x60: empty text
        ([0x61, 0x61], .text("a")),                                         // 0x61: 1 byte "a"
        ([0x64, 0x49, 0x45, 0x54, 0x46], .text("IETF")),
        ([0x62, 0xC3, 0xBC], .text("\u{00FC}")),                            // "ü" in UTF-8
        ([0x80], .array([])),                                               // 0x80: empty array
        ([0x83, 0x01, 0x02, 0x03], .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ([0x82, 0x01, 0x82, 0x02, 0x03], .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)])])),
        ([0xA0], .map([])),                                                 // 0xA0: empty map
        ([0xA2, 0x01, 0x02, 0x03, 0x04],                                    // {1: 2, 3: 4}
         .map([CBOR.Entry(.unsigned(1), .unsigned(2)), CBOR.Entry(.unsigned(3), .unsigned(4))])),
        ([0xA2, 0x61, 0x61, 0x01, 0x61, 0x62, 0x82, 0x02, 0x03],            // {"a": 1, "b": [2, 3]}
         .map(["a": .unsigned(1), "b": .array([.unsigned(2), .unsigned(3)])])),
        ([0xF4], .bool(false)),                                             // 0xF4: false
        ([0xF5], .bool(true)),                                              // 0xF5: true
        ([0xF6], .null),                                                    // 0xF6: null
        ([0xFB, 0x3F, 0xF1, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9A], .float(1.1)),  // 0xFB: double 1.1
    ]

    @Test(arguments: canonical.indices)
    func decodesAndReencodesToTheSameBytes(_ index: Int) throws {
        let (bytes, value) = Self.canonical[index]
        #expect(try CBOR(decoding: bytes) == value)
        #expect(try value.encoded() == bytes)
    }

    /// Other encodings libcbor accepts: non-shortest heads, half and single floats, indefinite lengths.
    static let nonCanonical: [(bytes: [UInt8], value: CBOR)] = [
        ([0x18, 0x01], .unsigned(1)),                                       // uint8 head holding 1
        ([0x1A, 0x00, 0x00, 0x00, 0x00], .unsigned(0)),                     // uint32 head holding 0
        ([0xF9, 0x3C, 0x00], .float(1.0)),                                  // 0xF9: half float 1.0
        ([0xFA, 0x47, 0xC3, 0x50, 0x00], .float(100_000.0)),                // 0xFA: single float
        ([0x5F, 0x42, 0x01, 0x02, 0x43, 0x03, 0x04, 0x05, 0xFF], .bytes([1, 2, 3, 4, 5])),  // (_ h'0102', h'030405')
        ([0x7F, 0x65, 0x73, 0x74, 0x72, 0x65, 0x61, 0x64, 0x6D, 0x69, 0x6E, 0x67, 0xFF], .text("streaming")),
        ([0x9F, 0x01, 0x82, 0x02, 0x03, 0xFF], .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)])])),
        ([0xBF, 0x61, 0x61, 0x01, 0xFF], .map(["a": .unsigned(1)])),        // {_ "a": 1}
    ]

    @Test(arguments: nonCanonical.indices)
    func decodesOtherEncodingsOfTheSameValue(_ index: Int) throws {
        let (bytes, value) = Self.nonCanonical[index]
        #expect(try CBOR(decoding: bytes) == value)
    }

    @Test func integersHelperPicksTheMajorType() throws {
        #expect(CBOR.int(-1) == .negative(0))
        #expect(CBOR.int(500) == .unsigned(500))
        #expect(CBOR.int(.min).intValue == .min)
        #expect(CBOR.negative(.max).intValue == nil)
        #expect(try CBOR.int(-500).encoded() == [0x39, 0x01, 0xF3])          // negint16: −1 − 499
    }

    @Test func mapsKeepTheirOrderAndAnswerTextKeys() throws {
        let value = CBOR.map(["off": .unsigned(0), "data": .bytes([0xAB])])
        #expect(try value.encoded() == [
            0xA2,                               // map, 2 pairs
            0x63, 0x6F, 0x66, 0x66, 0x00,       // "off": 0
            0x64, 0x64, 0x61, 0x74, 0x61,       // "data":
            0x41, 0xAB,                         //   h'AB'
        ])
        #expect(value["data"] == .bytes([0xAB]))
        #expect(value["nope"] == nil)
        #expect(CBOR.unsigned(1)["off"] == nil)
    }

    @Test func openEndedContainersAreWrittenAsZephyrsZcborWritesThemAndReadBack() throws {
        // The real smp_svr's upload answer, {"off": 2399}, with its map left open-ended.
        let answer = CBOR.map(["off": .unsigned(2399)])
        #expect(try answer.encoded(containers: .indefinite) == [
            0xBF,                               // map, indefinite length
            0x63, 0x6F, 0x66, 0x66,             // "off"
            0x19, 0x09, 0x5F,                   //   2399 (uint16)
            0xFF,                               // break
        ])
        let list = CBOR.map(["images": .array([.map(["slot": .unsigned(0)])])])
        let bytes = try list.encoded(containers: .indefinite)
        #expect(bytes == [
            0xBF,                                                   // map, indefinite
            0x66, 0x69, 0x6D, 0x61, 0x67, 0x65, 0x73,               // "images"
            0x9F,                                                   //   array, indefinite
            0xBF, 0x64, 0x73, 0x6C, 0x6F, 0x74, 0x00, 0xFF,         //     {"slot": 0}
            0xFF,                                                   //   break (array)
            0xFF,                                                   // break (map)
        ])
        #expect(try CBOR(decoding: bytes) == list)
        #expect(try list.encoded().first == 0xA1)  // the default: the count in the head
    }

    @Test func largeByteStringsRoundTrip() throws {
        let data = (0..<2_400).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let value = CBOR.map(["data": .bytes(data)])
        let bytes = try value.encoded()
        #expect(bytes.count == 1 + 5 + 3 + data.count)  // map, "data", 0x59 + u16 length, the bytes
        #expect(try CBOR(decoding: bytes) == value)
    }

    @Test func diagnosticNotationEscapesControlCharacters() {
        let value = CBOR.map(["r": .text("a\u{1B}[2J\"b"), "h": .bytes([0x0F, 0xA0]), "n": .int(-3)])
        #expect(value.description == #"{"r": "a\u001b[2J\"b", "h": h'0fa0', "n": -3}"#)
    }
}

@Suite struct CBORMalformedInputTests {
    /// (bytes, expected kind): every one is refused with a clean error, never a crash.
    static let malformed: [(bytes: [UInt8], kind: CBORError.Kind)] = [
        ([], .empty),
        ([0x18], .truncated),                                   // uint8 head without its byte
        ([0x19, 0x01], .truncated),                             // uint16 head with one byte
        ([0x44, 0x01, 0x02], .truncated),                       // 4-byte string, 2 present
        ([0x83, 0x01, 0x02], .truncated),                       // array of 3, 2 present
        ([0xA1, 0x01], .truncated),                             // map of 1 pair, key only
        ([0x9F, 0x01], .truncated),                             // indefinite array without break
        ([0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .malformed),  // array of 2^64−1 items
        ([0x9B, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF], .truncated),  // array of 2^32−1 items, none present
        ([0xBB, 0xB3, 0xB3, 0xB3, 0xB3, 0xB3, 0xB3, 0xB3, 0xB3], .malformed),  // map count ≥ 2^63 (found by fuzzing)
        ([0xBB, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .malformed),  // map of 2^63−1 pairs: 2^64−2 items
        ([0x1C], .malformed),                                   // additional information 28: reserved
        ([0xFF], .malformed),                                   // a break outside any container
        ([0x82, 0x01, 0xFF], .malformed),                       // a break inside a definite array
        ([0x5F, 0x61, 0x61, 0xFF], .malformed),                 // a text chunk inside an indefinite byte string
        ([0x01, 0x02], .trailingBytes(count: 1)),               // 1, then a stray byte
        ([0xC1, 0x1A, 0x51, 0x4B, 0x67, 0xB0], .unsupported("a tag (1)")),  // tag 1 (epoch time)
        ([0xF7], .unsupported("undefined")),                    // 0xF7: undefined
        ([0x62, 0xC3, 0x28], .malformed),                       // "\xC3(": not UTF-8 (libcbor checks it)
        ([0xA2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02], .duplicateKey("\"a\"")),  // {"a": 1, "a": 2}
    ]

    @Test(arguments: malformed.indices)
    func refusesWithACleanError(_ index: Int) {
        let (bytes, kind) = Self.malformed[index]
        #expect(throws: CBORError.self) { try CBOR(decoding: bytes) }
        do {
            _ = try CBOR(decoding: bytes)
        } catch {
            #expect(error.kind == kind, "\(bytes)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func simpleValuesOtherThanBooleansAndNullAreRefused() {
        // 0xE0 (simple value 0) and 0xF8 0x20 (simple value 32): valid CBOR, not represented.
        for bytes: [UInt8] in [[0xE0], [0xF8, 0x20]] {
            #expect(throws: CBORError.self) { try CBOR(decoding: bytes) }
        }
    }

    @Test func nestingDeeperThanTheLimitIsRefusedBeforeLibcborBuildsIt() {
        // 100 000 nested one-element arrays (0x81 …) around 0: libcbor would recurse that deep.
        let deep = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        let limits = CBORLimits(maxBytes: 200_000, maxDepth: 16, maxItems: 200_000)
        #expect(throws: CBORError(.tooDeep(limit: 16), offset: 16)) { try CBOR(decoding: deep, limits: limits) }
        let indefinite = [UInt8](repeating: 0x9F, count: 100_000)  // 100 000 open indefinite arrays
        #expect(throws: CBORError.self) { try CBOR(decoding: indefinite, limits: limits) }
        // At the limit it decodes.
        let sixteen = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect((try? CBOR(decoding: sixteen, limits: limits)) != nil)
    }

    @Test func tooManyItemsAndTooManyBytesAreRefused() {
        let array = [UInt8]([0x99, 0x13, 0x88]) + [UInt8](repeating: 0x00, count: 5_000)  // 5000 zeros
        let limits = CBORLimits(maxBytes: 10_000, maxDepth: 4, maxItems: 1_000)
        #expect(throws: CBORError(.tooManyItems(limit: 1_000), offset: 1_002)) { try CBOR(decoding: array, limits: limits) }
        #expect(throws: CBORError(.tooLarge(bytes: 5_003, limit: 100))) {
            try CBOR(decoding: array, limits: CBORLimits(maxBytes: 100, maxDepth: 4, maxItems: 10_000))
        }
    }

    @Test func encodingRefusesValuesBeyondTheLimits() {
        var value = CBOR.unsigned(0)
        for _ in 0..<20 { value = .array([value]) }
        #expect(throws: CBORError(.tooDeep(limit: 16))) { try value.encoded() }
        let big = CBOR.bytes([UInt8](repeating: 0, count: 70_000))
        #expect(throws: CBORError.self) { try big.encoded() }
    }
}
