import DFUCore
import Testing

/// The Secure DFU control point codec, row by row (opcodes and layouts: nRF5 SDK 15–17
/// `nrf_dfu_req_handler.h` / `nrf_dfu_ble.c`; ../shared/docs/nordic-dfu-reference.md's opcode table).
@Suite struct SecureDFUCodecTests {
    static let requests: [CodecFixture<SecureDFURequest>] = [
        .init("Create command object of 5 bytes",
              [0x01,                        // Create Object
               0x01,                        // type: command
               0x05, 0x00, 0x00, 0x00],     // size u32 LE: 5
              .create(.command, size: 5)),
        .init("Create data object of 4096 bytes",
              [0x01,                        // Create Object
               0x02,                        // type: data
               0x00, 0x10, 0x00, 0x00],     // size u32 LE: 0x1000
              .create(.data, size: 4096)),
        .init("Set PRN 12",
              [0x02,                        // Set PRN
               0x0C, 0x00],                 // value u16 LE: 12
              .setPRN(12)),
        .init("Set PRN 0 (receipts off)",
              [0x02,                        // Set PRN
               0x00, 0x00],                 // value u16 LE: 0
              .setPRN(0)),
        .init("Calculate Checksum", [0x03], .calculateChecksum),
        .init("Execute", [0x04], .execute),
        .init("Select command object",
              [0x06,                        // Select Object
               0x01],                       // type: command
              .select(.command)),
        .init("Select data object",
              [0x06,                        // Select Object
               0x02],                       // type: data
              .select(.data)),
        .init("Abort (SDK 15+)", [0x0C], .abort),
    ]

    static let malformedRequests: [MalformedFrame] = [
        .init("empty", []),
        .init("Protocol Version (0x00) is not sent over BLE", [0x00]),
        .init("unknown opcode 0x05", [0x05]),
        .init("Create with its size cut short", [0x01, 0x02, 0x00, 0x10]),
        .init("Create of object type 3", [0x01, 0x03, 0x00, 0x10, 0x00, 0x00]),
        .init("Set PRN with one value byte", [0x02, 0x0C]),
        .init("Select without a type", [0x06]),
        .init("Calculate Checksum with a byte after it", [0x03, 0x00]),
    ]

    static let responses: [CodecFixture<SecureDFUResponse>] = [
        .init("Select answer: max 256, offset 5, CRC 0x12345678",
              [0x60, 0x06, 0x01,            // response, to Select Object, success
               0x00, 0x01, 0x00, 0x00,      // max size u32 LE: 256
               0x05, 0x00, 0x00, 0x00,      // offset u32 LE: 5
               0x78, 0x56, 0x34, 0x12],     // CRC-32 u32 LE: 0x12345678
              .selected(maxSize: 256, offset: 5, crc: 0x1234_5678)),
        .init("Checksum answer (or packet receipt): offset 500, CRC 0xDEADBEEF",
              [0x60, 0x03, 0x01,            // response, to Calculate Checksum, success
               0xF4, 0x01, 0x00, 0x00,      // offset u32 LE: 500
               0xEF, 0xBE, 0xAD, 0xDE],     // CRC-32 u32 LE
              .checksum(offset: 500, crc: 0xDEAD_BEEF)),
        .init("Create succeeded",
              [0x60, 0x01, 0x01],           // response, to Create Object, success
              .succeeded(.createObject)),
        .init("Set PRN succeeded",
              [0x60, 0x02, 0x01],           // response, to Set PRN, success
              .succeeded(.setPRN)),
        .init("Execute succeeded",
              [0x60, 0x04, 0x01],           // response, to Execute, success
              .succeeded(.execute)),
        .init("Abort succeeded",
              [0x60, 0x0C, 0x01],           // response, to Abort, success
              .succeeded(.abort)),
        .init("Create refused: insufficient resources",
              [0x60, 0x01, 0x04],           // response, to Create Object, result 0x04
              .refused(.createObject, .insufficientResources, nil)),
        .init("Execute refused: already executed (resume)",
              [0x60, 0x04, 0x08],           // response, to Execute, result 0x08 operation not permitted
              .refused(.execute, .operationNotPermitted, nil)),
        .init("Select refused: no payload with a failure",
              [0x60, 0x06, 0x07],           // response, to Select Object, result 0x07 unsupported type
              .refused(.selectObject, .unsupportedType, nil)),
        .init("Execute refused with extended error 0x07 (SoftDevice version)",
              [0x60, 0x04, 0x0B,            // response, to Execute, result 0x0B extended error
               0x07],                       // extended error: SD version failure
              .refused(.execute, .extendedError, SecureDFUExtendedError(rawValue: 0x07))),
        .init("Extended error without its byte",
              [0x60, 0x04, 0x0B],           // response, to Execute, result 0x0B, nothing after
              .refused(.execute, .extendedError, nil)),
    ]

    static let malformedResponses: [MalformedFrame] = [
        .init("empty", []),
        .init("the marker alone", [0x60]),
        .init("no result", [0x60, 0x06]),
        .init("a Legacy response marker (0x10)", [0x10, 0x01, 0x01]),
        .init("Select answer with its CRC cut short",
              [0x60, 0x06, 0x01, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x78, 0x56, 0x34]),
        .init("Checksum answer without its CRC", [0x60, 0x03, 0x01, 0xF4, 0x01, 0x00, 0x00]),
    ]

    @Test(arguments: requests) func requestEncodesToItsFixture(_ row: CodecFixture<SecureDFURequest>) {
        #expect(row.value.bytes == row.bytes)
    }

    @Test(arguments: requests) func requestFixtureDecodesAndReencodes(_ row: CodecFixture<SecureDFURequest>) throws {
        let decoded = try SecureDFURequest(bytes: row.bytes)
        #expect(decoded == row.value)
        #expect(decoded.bytes == row.bytes)
    }

    @Test(arguments: malformedRequests) func malformedRequestIsRefused(_ row: MalformedFrame) {
        do {
            let decoded = try SecureDFURequest(bytes: row.bytes)
            Issue.record("decoded as \(decoded)")
        } catch {
            #expect(error.bytes == row.bytes)
        }
    }

    @Test(arguments: responses) func responseFixtureDecodesAndReencodes(_ row: CodecFixture<SecureDFUResponse>) throws {
        let decoded = try SecureDFUResponse(bytes: row.bytes)
        #expect(decoded == row.value)
        #expect(decoded.bytes == row.bytes)
    }

    @Test(arguments: malformedResponses) func malformedResponseIsRefused(_ row: MalformedFrame) {
        #expect(throws: SecureDFUResponse.DecodingError.self) { try SecureDFUResponse(bytes: row.bytes) }
    }

    @Test func bytesAfterAnAnswerAreIgnoredAndNotReencoded() throws {
        // 60 01 01 = Create succeeded; FF = one byte too many.
        let decoded = try SecureDFUResponse(bytes: [0x60, 0x01, 0x01, 0xFF])
        #expect(decoded == .succeeded(.createObject))
        #expect(decoded.bytes == [0x60, 0x01, 0x01])
    }

    @Test func aTruncatedSelectAnswerSaysSo() {
        #expect(throws: SecureDFUResponse.DecodingError.truncatedPayload) {
            try SecureDFUResponse(bytes: [0x60, 0x06, 0x01, 0x00, 0x01])
        }
        #expect(throws: SecureDFUResponse.DecodingError.notAResponse) { try SecureDFUResponse(bytes: [0x60, 0x06]) }
    }
}
