import DFUCore
import Testing
import DFUFormats

/// Bytes a device sent appear in one-line messages capped, however many it sent.
@Suite struct DeviceBytesInMessagesTests {
    /// A 60 KB notification once made a 180 KB error line.
    @Test func anUnexpectedNotificationOf60KBIsShownAsItsFirst32BytesAndItsLength() {
        let flood = [UInt8](repeating: 0x60, count: 60_000)
        let text = DFUError.unexpectedResponse(step: .settingPRN, bytes: flood).description
        #expect(text.count < 400, "\(text.count) characters")
        #expect(text.contains(" … (60000 bytes)"))
        #expect(!text.contains("\n"))
    }

    @Test func aShortNotificationIsShownWhole() {
        let text = DFUError.unexpectedResponse(step: .settingPRN, bytes: [0x60, 0x02, 0x01]).description
        #expect(text.contains("(60 02 01)"))
    }

    @Test func hexUpToALimitKeepsShortBytesAndCutsLongOnes() {
        #expect([0x01, 0x02].hexDescription(upTo: 2) == "01 02")
        #expect([0x01, 0x02, 0x03].hexDescription(upTo: 2) == "01 02 … (3 bytes)")
    }
}
