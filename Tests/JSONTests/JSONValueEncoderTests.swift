import JSON
import Testing

/// `Encodable` values as JSON: what the synthesized conformances and hand-written ones produce.
@Suite struct JSONValueEncoderTests {
    struct Event: Encodable {
        var event: String
        var device: String?
        var seconds: Double?
        var parts: [String]?
        var exitCode: Int32?
        enum CodingKeys: String, CodingKey { case event, device, seconds, parts, exitCode = "exit_code" }
    }

    @Test func absentOptionalsAreLeftOutAndKeysRenamed() throws {
        let value = try JSONValueEncoder().encode(Event(event: "done", device: nil, seconds: 1.5, parts: ["application"], exitCode: 0))
        #expect(value == .object([
            "event": .string("done"), "seconds": .double(1.5), "parts": .array([.string("application")]), "exit_code": .integer(0),
        ]))
        #expect(try value.serialized() == #"{"event":"done","exit_code":0,"parts":["application"],"seconds":1.5}"#)
    }

    struct Image: Encodable {
        let index: UInt64
        let hash: String?
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(index, forKey: .index)
            try container.encode(hash, forKey: .hash)  // encode (not encodeIfPresent): nil is written as null
            var flags = container.nestedUnkeyedContainer(forKey: .flags)
            try flags.encode(true)
            try flags.encodeNil()
        }
        enum Keys: String, CodingKey { case index, hash, flags }
    }

    @Test func explicitNilIsNullAndNestedContainersNest() throws {
        let value = try JSONValueEncoder().encode(["images": [Image(index: UInt64.max, hash: nil)]])
        #expect(try value.serialized() == #"{"images":[{"flags":[true,null],"hash":null,"index":18446744073709551615}]}"#)
    }

    enum Mode: String, Encodable { case application, bootloader }

    @Test func rawValueEnumsAreTheirStrings() throws {
        #expect(try JSONValueEncoder().encode([Mode.bootloader]) == .array([.string("bootloader")]))
    }
}
