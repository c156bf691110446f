import JSON
import Testing

/// Reading text through json-c's strict tokener: what is one JSON value, what is not, and how numbers that
/// json-c saturates are kept apart from those it holds.
@Suite struct JSONValueParsingTests {
    static func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("  false\n", .bool(false)),                                        // whitespace around the value
        ("0", .integer(0)),                                                 // a number alone at the top level
        ("-12", .integer(-12)),
        ("9223372036854775807", .integer(Int64.max)),                       // 2^63 − 1: int64
        ("9223372036854775808", .unsignedInteger(9_223_372_036_854_775_808)),  // 2^63: uint64
        ("18446744073709551614", .unsignedInteger(UInt64.max - 1)),         // 2^64 − 2: the largest json-c keeps
        ("18446744073709551615", .integerBeyond64Bits(negative: false)),    // 2^64 − 1: where json-c saturates
        ("1000000000000000000000000000000", .integerBeyond64Bits(negative: false)),  // 10^30
        ("-9223372036854775808", .integerBeyond64Bits(negative: true)),     // −2^63: saturated, as any below
        ("1.5", .double(1.5)),
        ("2e3", .double(2000)),                                             // an exponent makes a double
        (#""a\"b\\c\/d\u00e9\u0000""#, .string("a\"b\\c/d\u{E9}\u{0}")),    // escapes, é, and a NUL kept
        ("[]", .array([])),
        (#"[1, "x", [null]]"#, .array([.integer(1), .string("x"), .array([.null])])),
        (#"{"b": {"c": []}, "a": 1}"#, .object(["a": .integer(1), "b": .object(["c": .array([])])])),
        (#"{"a": 1, "a": 2}"#, .object(["a": .integer(2)])),                // a repeated key keeps its last value
    ])
    func readsOneValue(text: String, value: JSONValue) throws {
        #expect(try Self.parse(text) == value)
    }

    @Test(arguments: [
        "",                     // nothing
        "   ",                  // whitespace only
        "[1, 2",                // ends inside the array
        #"{"a": 1,}"#,          // a trailing comma
        "[1] x",                // text after the value
        "/* c */ 1",            // a comment
        "01",                   // a leading zero
        "{a: 1}",               // a key without quotes
        "[1]\u{0}[2]",          // a NUL ends json-c's reading: what follows is not whitespace
    ])
    func refusesWhatIsNotOneValue(text: String) {
        #expect {
            _ = try Self.parse(text)
        } throws: { error in
            guard case JSONError.invalid = error else { return false }
            return true
        }
    }

    @Test func refusesAStringThatIsNotUTF8() {
        // "\xFF": 0xFF never starts a UTF-8 sequence.
        #expect {
            _ = try JSONValue(parsing: [0x22, 0xFF, 0x22])
        } throws: { error in
            guard case JSONError.invalidUTF8 = error else { return false }
            return true
        }
    }

    @Test func refusesNestingDeeperThanTheLimit() throws {
        let depth = Int(JSONValue.maxDepth)
        #expect(try Self.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)) != .null)
        #expect(throws: JSONError.tooDeep(limit: depth)) {
            _ = try Self.parse(String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1))
        }
    }

    @Test func takesWhatJSONCAcceptsBeyondTheRFCAsDocumented() throws {
        // json-c's strict mode still reads an object key in single quotes (not a string value) and NaN, which
        // is no finite number.
        #expect(try Self.parse("{'a': 1}") == .object(["a": .integer(1)]))
        #expect(throws: JSONError.invalid(offset: 0)) { _ = try Self.parse("'b'") }
        #expect(try Self.parse("NaN").doubleValue == nil)
        #expect(try Self.parse("NaN").isNumber)
    }

    @Test func integersAreReadIntoTheTypeThatHoldsThem() throws {
        #expect(try Self.parse("4294967295").integer(as: UInt32.self) == UInt32.max)
        #expect(try Self.parse("4294967296").integer(as: UInt32.self) == nil)   // 2^32: beyond UInt32
        #expect(try Self.parse("-1").integer(as: UInt64.self) == nil)
        #expect(try Self.parse("18446744073709551614").integer(as: UInt64.self) == UInt64.max - 1)
        #expect(try Self.parse("1e400").integer(as: Int.self) == nil)           // a double, not an integer
        #expect(try Self.parse("1e400").doubleValue == nil)                     // and an infinite one
    }
}
