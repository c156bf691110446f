import DFUCore
import Testing
import DFUFormats

/// The Legacy DFU control point codec, row by row (opcodes and layouts: nRF5 SDK 11 `ble_dfu.h` /
/// `dfu_transport_ble.c`; ../shared/docs/nordic-dfu-reference.md's Legacy table).
@Suite struct LegacyDFUCodecTests {
    static let requests: [CodecFixture<LegacyDFURequest>] = [
        .init("Start DFU of an application",
              [0x01,                        // Start DFU
               0x04],                       // image type: application
              .startDFU(.application)),
        .init("Start DFU of a SoftDevice",
              [0x01,                        // Start DFU
               0x01],                       // image type: SoftDevice
              .startDFU(.softdevice)),
        .init("Start DFU of a bootloader",
              [0x01,                        // Start DFU
               0x02],                       // image type: bootloader
              .startDFU(.bootloader)),
        .init("Start DFU of a SoftDevice and bootloader",
              [0x01,                        // Start DFU
               0x03],                       // image type: SoftDevice + bootloader
              .startDFU(.softdeviceBootloader)),
        .init("the original Start DFU of SDK 4.3–6.0", [0x01], .startDFUOriginal),
        .init("Initialize DFU Parameters: begin",
              [0x02,                        // Initialize DFU Parameters
               0x00],                       // begin: the init packet follows
              .initializeBegin),
        .init("Initialize DFU Parameters: complete",
              [0x02,                        // Initialize DFU Parameters
               0x01],                       // complete
              .initializeComplete),
        .init("Initialize DFU Parameters of SDK ≤ 6 (the CRC-16 follows)", [0x02], .initializeCRC),
        .init("Packet Receipt Notification Request every 12 packets",
              [0x08,                        // PRN request
               0x0C, 0x00],                 // N u16 LE: 12
              .packetReceiptRequest(12)),
        .init("Receive Firmware Image", [0x03], .receiveFirmware),
        .init("Validate Firmware", [0x04], .validate),
        .init("Activate Image and Reset", [0x05], .activateAndReset),
        .init("Reset System", [0x06], .reset),
    ]

    static let malformedRequests: [MalformedFrame] = [
        .init("empty", []),
        .init("Report Received Image Size (0x07) is not sent", [0x07]),
        .init("Start DFU of image type 5", [0x01, 0x05]),
        .init("Initialize with sub-opcode 2", [0x02, 0x02]),
        .init("PRN request with one byte", [0x08, 0x0C]),
        .init("Validate with a byte after it", [0x04, 0x00]),
    ]

    static let notifications: [CodecFixture<LegacyDFUNotification>] = [
        .init("Start DFU succeeded",
              [0x10,                        // response
               0x01,                        // to Start DFU
               0x01],                       // status: success
              .response(.startDFU, .success)),
        .init("Start DFU in the wrong state (a bootloader to reset)",
              [0x10,                        // response
               0x01,                        // to Start DFU
               0x02],                       // status: invalid state
              .response(.startDFU, .invalidState)),
        .init("Initialize failed (init packet refused)",
              [0x10,                        // response
               0x02,                        // to Initialize DFU Parameters
               0x06],                       // status: operation failed
              .response(.initialize, .operationFailed)),
        .init("Receive Firmware Image done",
              [0x10,                        // response
               0x03,                        // to Receive Firmware Image
               0x01],                       // status: success
              .response(.receiveFirmware, .success)),
        .init("Validate: CRC error",
              [0x10,                        // response
               0x04,                        // to Validate Firmware
               0x05],                       // status: CRC error
              .response(.validate, .crcError)),
        .init("Packet receipt: 240 bytes",
              [0x11,                        // packet receipt
               0xF0, 0x00, 0x00, 0x00],     // bytes received u32 LE: 240
              .packetReceipt(bytesReceived: 240)),
        .init("Packet receipt past 64 KiB",
              [0x11,                        // packet receipt
               0x00, 0x00, 0x01, 0x00],     // bytes received u32 LE: 65536
              .packetReceipt(bytesReceived: 65536)),
    ]

    static let malformedNotifications: [MalformedFrame] = [
        .init("empty", []),
        .init("response without a status", [0x10, 0x01]),
        .init("receipt with its count cut short", [0x11, 0xF0, 0x00, 0x00]),
        .init("a Secure response (0x60)", [0x60, 0x01, 0x01]),
        .init("unknown marker 0x12", [0x12, 0x00, 0x00]),
    ]

    @Test(arguments: requests) func requestFixtureDecodesAndReencodes(_ row: CodecFixture<LegacyDFURequest>) throws {
        #expect(row.value.bytes == row.bytes)
        let decoded = try LegacyDFURequest(bytes: row.bytes)
        #expect(decoded == row.value)
        #expect(decoded.bytes == row.bytes)
    }

    @Test(arguments: malformedRequests) func malformedRequestIsRefused(_ row: MalformedFrame) {
        do {
            let decoded = try LegacyDFURequest(bytes: row.bytes)
            Issue.record("decoded as \(decoded)")
        } catch {
            #expect(error.bytes == row.bytes)
        }
    }

    @Test(arguments: notifications) func notificationFixtureDecodesAndReencodes(_ row: CodecFixture<LegacyDFUNotification>) throws {
        let decoded = try LegacyDFUNotification(bytes: row.bytes)
        #expect(decoded == row.value)
        #expect(decoded.bytes == row.bytes)
    }

    @Test(arguments: malformedNotifications) func malformedNotificationIsRefused(_ row: MalformedFrame) {
        do {
            let decoded = try LegacyDFUNotification(bytes: row.bytes)
            Issue.record("decoded as \(decoded)")
        } catch {
            #expect(error.bytes == row.bytes)
        }
    }
}
