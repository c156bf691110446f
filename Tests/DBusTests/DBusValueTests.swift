import DBus
import Testing

/// Values and their signatures, shared by the offline and the live round-trip tests.
struct ValueCase: CustomTestStringConvertible, Sendable {
    let value: DBusValue
    let signature: String
    var testDescription: String { signature }

    static func all() throws -> [ValueCase] {
        let path = try ObjectPath("/org/bluez/hci0")
        return [
            ValueCase(value: .byte(0xFF), signature: "y"),
            ValueCase(value: .boolean(true), signature: "b"),
            ValueCase(value: .int16(-32768), signature: "n"),
            ValueCase(value: .uint16(65535), signature: "q"),
            ValueCase(value: .int32(-2_147_483_648), signature: "i"),
            ValueCase(value: .uint32(0xDEAD_BEEF), signature: "u"),
            ValueCase(value: .int64(.min), signature: "x"),
            ValueCase(value: .uint64(.max), signature: "t"),
            ValueCase(value: .double(-1.5e300), signature: "d"),
            ValueCase(value: .string("nRF52 DFU – ünïcode ✓"), signature: "s"),
            ValueCase(value: .string(""), signature: "s"),
            ValueCase(value: .objectPath(path), signature: "o"),
            ValueCase(value: .signature("a{oa{sa{sv}}}"), signature: "g"),
            ValueCase(value: .byteArray([0x01, 0x00, 0xFE]), signature: "ay"),
            ValueCase(value: .byteArray([]), signature: "ay"),
            ValueCase(value: .array(elementSignature: "a{sv}", elements: []), signature: "aa{sv}"),
            ValueCase(value: .stringArray(["0000fe59-0000-1000-8000-00805f9b34fb"]), signature: "as"),
            ValueCase(
                value: .stringVariantDictionary(["type": .string("command"), "offset": .uint16(3)]),
                signature: "a{sv}"),
            ValueCase(value: .stringVariantDictionary([:]), signature: "a{sv}"),
            ValueCase(
                value: .dictionary(
                    keySignature: "o", valueSignature: "a{sa{sv}}",
                    entries: [
                        DBusDictionaryEntry(
                            key: .objectPath(path),
                            value: .dictionary(
                                keySignature: "s", valueSignature: "a{sv}",
                                entries: [
                                    DBusDictionaryEntry(
                                        key: .string("org.bluez.Adapter1"),
                                        value: .stringVariantDictionary(["Powered": .boolean(true)]))
                                ]))
                    ]),
                signature: "a{oa{sa{sv}}}"),
            ValueCase(
                value: .dictionary(
                    keySignature: "q", valueSignature: "ay",
                    entries: [DBusDictionaryEntry(key: .uint16(0x0059), value: .byteArray([1, 2]))]),
                signature: "a{qay}"),
            ValueCase(value: .structure([.string("a"), .int32(1), .variant(.boolean(false))]), signature: "(siv)"),
            ValueCase(value: .variant(.variant(.uint32(7))), signature: "v"),
            ValueCase(value: .variant(.stringArray([])), signature: "v"),
        ]
    }
}

@Suite struct DBusValueTests {
    @Test(arguments: try ValueCase.all())
    func signatureIsComputedFromTheValue(_ testCase: ValueCase) {
        #expect(testCase.value.signature.rawValue == testCase.signature)
        #expect(testCase.value.signature.isSingleCompleteType)
    }

    @Test(arguments: try ValueCase.all())
    func marshalledMessageDemarshalsToTheSameValue(_ testCase: ValueCase) throws {
        let message = DBusMessage(
            type: .signal, path: try ObjectPath("/test"), interface: try InterfaceName("test.Values"),
            member: try MemberName("Value"), arguments: [testCase.value, .string("after")])
        let decoded = try DBusMessage(marshalled: try message.marshalled())
        #expect(decoded.arguments == [testCase.value, .string("after")])
        #expect(decoded.signature.rawValue == testCase.signature + "s")
    }

    @Test func aByteArrayOfByteValuesIsSentAsAyAndReadBackAsOneBytesValue() throws {
        let message = DBusMessage(
            type: .signal, path: try ObjectPath("/test"), interface: try InterfaceName("test.Values"),
            member: try MemberName("Value"), arguments: [.array(elementSignature: "y", elements: [.byte(0x60), .byte(0x01)])])
        let decoded = try DBusMessage(marshalled: try message.marshalled())
        #expect(decoded.signature.rawValue == "ay")
        #expect(decoded.arguments == [.bytes([0x60, 0x01])])
        #expect(decoded.arguments.first?.byteArrayValue == [0x60, 0x01])
        #expect(decoded.arguments.first?.arrayElements == [.byte(0x60), .byte(0x01)])
    }

    @Test func marshalledSignalHasTheWireLayoutOfTheSpecification() throws {
        let message = DBusMessage(
            type: .signal, serial: 7, path: try ObjectPath("/a"), interface: try InterfaceName("x.Y"),
            member: try MemberName("Z"), arguments: [.byte(0x2A)])
        let bytes = try message.marshalled()
        // Fixed header: 'l' (little-endian), 4 (SIGNAL), 0x01 (NO_REPLY_EXPECTED is not set; 0x01 would be)…
        #expect(bytes[0] == UInt8(ascii: "l"))  // byte order
        #expect(bytes[1] == 4)  // message type: signal
        #expect(bytes[3] == 1)  // protocol version
        #expect(Array(bytes[4..<8]) == [1, 0, 0, 0])  // body length: one byte
        #expect(Array(bytes[8..<12]) == [7, 0, 0, 0])  // serial
        #expect(bytes.last == 0x2A)  // the body: the byte itself
    }

    struct InvalidCase: CustomTestStringConvertible, Sendable {
        let name: String
        let value: DBusValue
        var testDescription: String { name }
    }

    static let invalidCases: [InvalidCase] = [
        InvalidCase(name: "string with NUL", value: .string("a\0b")),
        InvalidCase(name: "array element of another type", value: .array(elementSignature: "s", elements: [.int32(1)])),
        InvalidCase(name: "array of two types", value: .array(elementSignature: "ss", elements: [])),
        InvalidCase(
            name: "byte array holding a string", value: .array(elementSignature: "y", elements: [.byte(1), .string("2")])),
        InvalidCase(name: "string-variant dictionary key", value: .dictionary(keySignature: "sv", valueSignature: "s", entries: [])),
        InvalidCase(name: "empty structure", value: .structure([])),
        InvalidCase(name: "variant key", value: .dictionary(keySignature: "v", valueSignature: "s", entries: [])),
        InvalidCase(
            name: "dictionary entry of another type",
            value: .dictionary(
                keySignature: "s", valueSignature: "v",
                entries: [DBusDictionaryEntry(key: .string("k"), value: .string("not a variant"))])),
        InvalidCase(name: "invalid signature value", value: .signature("a{")),
        InvalidCase(name: "closed descriptor", value: .unixFileDescriptor(OwnedFileDescriptor(taking: -1))),
    ]

    @Test(arguments: invalidCases)
    func invalidValuesAreRefusedWithATypedErrorInsteadOfReachingLibdbus(_ testCase: InvalidCase) throws {
        let message = DBusMessage(
            type: .signal, path: try ObjectPath("/test"), interface: try InterfaceName("test.Values"),
            member: try MemberName("Value"), arguments: [testCase.value])
        #expect(throws: DBusError.self) {
            _ = try message.marshalled()
        }
    }

    @Test func malformedBytesAreRefused() {
        #expect(throws: DBusError.self) { _ = try DBusMessage(marshalled: []) }
        #expect(throws: DBusError.self) { _ = try DBusMessage(marshalled: Array(repeating: 0x6C, count: 40)) }
    }

    @Test func accessorsLookThroughVariants() {
        let properties = DBusValue.stringVariantDictionary([
            "Address": .string("AA:BB:CC:DD:EE:FF"), "RSSI": .int16(-60), "Connected": .boolean(false),
        ])
        let dictionary = properties.stringKeyedDictionary
        #expect(dictionary?["Address"]?.stringValue == "AA:BB:CC:DD:EE:FF")
        #expect(dictionary?["RSSI"]?.integerValue == -60)
        #expect(dictionary?["Connected"]?.boolValue == false)
        #expect(DBusValue.variant(.byteArray([9])).byteArrayValue == [9])
    }
}

/// Signatures found valid are remembered (every message checks the same few); what libdbus refuses never is.
@Suite struct DBusSignatureValidityTests {
    @Test func aRememberedSignatureStaysValidAndARefusedOneStaysRefused() {
        let valid: DBusSignature = "aya{sv}"
        #expect(valid.isValid)
        #expect(valid.isValid)                          // the second answer from what was remembered
        #expect(!DBusSignature(stringLiteral: "a{vs}").isValid)   // a variant cannot be a dictionary key
        #expect(!DBusSignature(stringLiteral: "a{vs}").isValid)   // refused again, not remembered
        #expect(DBusSignature(stringLiteral: "a{sv}").isSingleCompleteType)
        #expect(!DBusSignature(stringLiteral: "aya{sv}").isSingleCompleteType)  // valid, but two complete types
    }

    @Test func manyDistinctSignaturesAreAllAnsweredRight() {
        // More than are remembered: those beyond the limit are validated each time, with the same answers.
        for depth in 1...40 {
            let signature = DBusSignature(stringLiteral: String(repeating: "a", count: depth) + "y")
            #expect(signature.isValid == (depth <= 32), "\(depth) arrays deep")  // D-Bus allows 32 nested arrays
        }
    }
}
