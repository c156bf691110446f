import JSON
import Testing

/// Writing through json-c: compact, keys sorted, `/` as it is, doubles as Swift's shortest form.
@Suite struct JSONValueWritingTests {
    @Test(arguments: [
        (JSONValue.object(["b": .integer(1), "a": .array([.null, .bool(true)])]), #"{"a":[null,true],"b":1}"#),
        (.object([:]), "{}"),
        (.array([]), "[]"),
        (.string("a/b \"q\" \\ \u{E9}"), #""a/b \"q\" \\ é""#),   // slash as is, é as UTF-8
        (.string("\u{1}\n\t"), #""\u0001\n\t""#),                  // control characters escaped
        (.double(2), "2"),                                          // an integral double without ".0"
        (.double(1.5), "1.5"),
        (.double(0.1), "0.1"),                                      // not json-c's %.17g 0.10000000000000001
        (.double(-0.25), "-0.25"),
        (.integer(-7), "-7"),
        (.unsignedInteger(UInt64.max - 1), "18446744073709551614"),
    ])
    func writes(value: JSONValue, text: String) throws {
        #expect(try value.serialized() == text)
    }

    @Test func refusesANumberJSONCannotWrite() {
        #expect(throws: JSONError.unwritableNumber(.infinity)) { _ = try JSONValue.double(.infinity).serialized() }
    }

    @Test(arguments: [
        JSONValue.object(["device": .string("AA:BB"), "slots": .array([.object(["hash": .string("00ff"), "image": .integer(0)])])]),
        .array([.double(1.25), .integer(Int64.min + 1), .string("\u{0}x")]),
    ])
    func whatIsWrittenReadsBackTheSame(value: JSONValue) throws {
        #expect(try JSONValue(parsing: Array(try value.serialized().utf8)) == value)
    }
}
