import DFUSimPeripheral
import DFUSimulator
import Testing

@Suite struct PeripheralReportTests {
    @Test func imagesCarryTheirSizeAndCRC32() {
        var storage = SimulatedStorage(application: Array("123456789".utf8))
        storage.softdevice = [0x01, 0x02]
        storage.bootloader = [0x03]
        let report = PeripheralReport(storage: storage)
        // CRC-32 of "123456789" is the standard check value 0xCBF43926.
        #expect(report.application == PeripheralReport.Image(Array("123456789".utf8)))
        #expect(report.application?.crc32 == 0xCBF4_3926)
        #expect(report.application?.size == 9)
        #expect(report.softdeviceBootloader == PeripheralReport.Image([0x01, 0x02, 0x03]))
    }

    @Test func factorySoftDeviceAndBootloaderAreAbsent() {
        let report = PeripheralReport(storage: SimulatedStorage())
        #expect(report.softdevice == nil)
        #expect(report.bootloader == nil)
        #expect(report.softdeviceBootloader == nil)
    }
}
