import DFUCore
import Testing

/// The buttonless codec, row by row (nRF5 SDK 15 `ble_dfu.c` `ble_dfu_resp_send`, `ble_dfu_unbonded.c`
/// `set_adv_name`; ../shared/docs/nordic-dfu-reference.md's buttonless section).
@Suite struct ButtonlessCodecTests {
    static let requests: [CodecFixture<ButtonlessRequest>] = [
        .init("Enter Bootloader", [0x01], .enterBootloader),
        .init("Set Advertising Name \"Dfu00001\"",
              [0x02,                        // Set Advertising Name
               0x08,                        // length: 8
               0x44, 0x66, 0x75, 0x30,      // "Dfu0"
               0x30, 0x30, 0x30, 0x31],     // "0001"
              .setAdvertisingName("Dfu00001")),
        .init("Set Advertising Name of 20 bytes, the most there is",
              [0x02,                        // Set Advertising Name
               0x14] +                      // length: 20
              Array(repeating: 0x41, count: 20),  // "AAAA…" (20 × "A")
              .setAdvertisingName(String(repeating: "A", count: 20))),
    ]

    static let malformedRequests: [MalformedFrame] = [
        .init("empty", []),
        .init("unknown opcode 0x03", [0x03]),
        .init("a name of length 0", [0x02, 0x00]),
        .init("a name of length 21", [0x02, 0x15] + Array(repeating: 0x41, count: 21)),
        .init("a name shorter than its length", [0x02, 0x02, 0x41]),
        .init("a name that is not UTF-8", [0x02, 0x01, 0xFF]),
        .init("Enter Bootloader with a byte after it", [0x01, 0x00]),
    ]

    static let responses: [CodecFixture<ButtonlessResponse>] = [
        .init("Enter Bootloader succeeded",
              [0x20,                        // response
               0x01,                        // to Enter Bootloader
               0x01],                       // status: success
              .init(request: .enterBootloader, status: .success)),
        .init("Set Advertising Name unknown to SDK 13",
              [0x20,                        // response
               0x02,                        // to Set Advertising Name
               0x02],                       // status: opcode not supported
              .init(request: .setAdvertisingName, status: .opCodeNotSupported)),
        .init("Enter Bootloader on a link that is not bonded",
              [0x20,                        // response
               0x01,                        // to Enter Bootloader
               0x07],                       // status: not bonded
              .init(request: .enterBootloader, status: .notBonded)),
        .init("Set Advertising Name refused",
              [0x20,                        // response
               0x02,                        // to Set Advertising Name
               0x05],                       // status: invalid advertisement name
              .init(request: .setAdvertisingName, status: .invalidAdvertisementName)),
    ]

    static let malformedResponses: [MalformedFrame] = [
        .init("empty", []),
        .init("response without a status", [0x20, 0x01]),
        .init("a Secure response marker (0x60)", [0x60, 0x01, 0x01]),
    ]

    @Test(arguments: requests) func requestFixtureDecodesAndReencodes(_ row: CodecFixture<ButtonlessRequest>) throws {
        #expect(row.value.bytes == row.bytes)
        let decoded = try ButtonlessRequest(bytes: row.bytes)
        #expect(decoded == row.value)
        #expect(decoded.bytes == row.bytes)
    }

    @Test(arguments: malformedRequests) func malformedRequestIsRefused(_ row: MalformedFrame) {
        do {
            let decoded = try ButtonlessRequest(bytes: row.bytes)
            Issue.record("decoded as \(decoded)")
        } catch {
            #expect(error.bytes == row.bytes)
        }
    }

    @Test(arguments: responses) func responseFixtureDecodesAndReencodes(_ row: CodecFixture<ButtonlessResponse>) throws {
        let decoded = try ButtonlessResponse(bytes: row.bytes)
        #expect(decoded == row.value)
        #expect(decoded.bytes == row.bytes)
    }

    @Test(arguments: malformedResponses) func malformedResponseIsRefused(_ row: MalformedFrame) {
        do {
            let decoded = try ButtonlessResponse(bytes: row.bytes)
            Issue.record("decoded as \(decoded)")
        } catch {
            #expect(error.bytes == row.bytes)
        }
    }

    @Test func aLongerNameIsCutToTwentyBytes() {
        // 02, length 20, the first 20 bytes of a 25-byte name.
        #expect(ButtonlessRequest.setAdvertisingName(String(repeating: "B", count: 25)).bytes
            == [0x02, 0x14] + Array(repeating: 0x42, count: 20))
    }
}
