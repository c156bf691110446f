import DFUCore
import DFUCrypto
import Testing
import DFUFormats

@Suite struct RawImageTests {
    @Test func binaryWithoutInitPacketIsLegacyWithNothingToCheck() throws {
        let image = TestPackages.image(32)
        let raw = RawImage(kind: .application, imageName: "app.bin", imageBytes: image)
        #expect(raw.format == .legacy)
        let report = try DFUPackage.inspect(raw: raw)
        #expect(report.parts.first?.imageCheck == .notChecked(reason: "no init packet"))
        let package = try report.checkedPackage()
        #expect(package.format == .legacy)
        #expect(package.parts.first?.image == image)
        #expect(package.parts.first?.initPacketName == nil)
    }

    @Test func protobufInitPacketMakesItSecure() throws {
        let image = TestPackages.image(32)
        let raw = RawImage(
            kind: .application, imageName: "app.bin", imageBytes: image, initPacketName: "app.dat",
            initPacket: InitCommandFields.describing(image, as: .application).unsignedPacket())
        #expect(raw.format == .secure)
        let package = try DFUPackage(raw: raw)
        #expect(package.format == .secure)
        #expect(package.parts.first?.initPacketName == "app.dat")
    }

    @Test func legacyCRCPacketMakesItLegacyAndIsChecked() throws {
        let image = TestPackages.image(32)
        let crc = CRC16.checksum(image)
        let raw = RawImage(
            kind: .application, imageName: "app.bin", imageBytes: image, initPacketName: "app.dat",
            initPacket: [UInt8(crc & 0xFF), UInt8(crc >> 8)])
        #expect(raw.format == .legacy)
        #expect(try DFUPackage.inspect(raw: raw).parts.first?.imageCheck == .matches(.crc16))
    }

    @Test func brokenProtobufIsReportedAsAProtobufError() {
        // Starts like Packet.command (0x0A) but its length runs past the end.
        let raw = RawImage(kind: .application, imageName: "app.bin", imageBytes: [0, 0, 0, 0], initPacketName: "app.dat", initPacket: [0x0A, 0x30, 0x08])
        #expect(throws: PackageError.malformedInitPacket(name: "app.dat", defect: .truncated(field: "field 1 'command'"))) {
            _ = try DFUPackage.inspect(raw: raw)
        }
    }

    @Test func softdeviceBootloaderNeedsSizesThatAddUp() throws {
        let image = TestPackages.image(48)
        let good = RawImage(kind: .softdeviceBootloader, imageName: "sd_bl.bin", imageBytes: image, softdeviceSize: 32, bootloaderSize: 16)
        #expect(try DFUPackage(raw: good).parts.first?.softdeviceSize == 32)
        var bad = good
        bad.bootloaderSize = 20
        #expect(throws: PackageError.systemSizesMismatch(name: "sd_bl.bin", softdeviceSize: 32, bootloaderSize: 20, imageSize: 48)) {
            _ = try DFUPackage(raw: bad)
        }
        var none = good
        none.softdeviceSize = nil
        #expect(throws: PackageError.missingSystemSizes(name: "sd_bl.bin")) { _ = try DFUPackage(raw: none) }
    }

    @Test func hexImagesAreConverted() throws {
        let hex = [
            ":0410000001020304E2",  // 4 bytes at 0x1000
            ":00000001FF",  // end of file
        ].joined(separator: "\n")
        let raw = RawImage(kind: .application, imageName: "APP.HEX", imageBytes: Array(hex.utf8))
        #expect(raw.isIntelHex)
        #expect(try DFUPackage(raw: raw).parts.first?.image == [1, 2, 3, 4])
    }

    @Test(.enabled(if: SharedData.hasNordicSamples, "needs ../shared/nordic-samples"))
    func nordicBootloaderHexMatchesItsBinWithTheSampleInitPacket() throws {
        // nrf52840 SDK 15.2 bootloader: the same image as ios/TestFirmwares/sdk_15_2_bootloader.bin.
        let zip = try SharedData.sample("ios/Firmwares/nRF52840/nrf52840_sdk_15.2_bl_2.zip")
        let entries = try ZipArchiveHelper.entries(zip)
        let raw = RawImage(
            kind: .bootloader, imageName: "sdk_15_2_bootloader.hex",
            imageBytes: try SharedData.sample("ios/TestFirmwares/sdk_15_2_bootloader.hex"),
            initPacketName: "bootloader.dat", initPacket: entries["bootloader.dat"])
        let report = try DFUPackage.inspect(raw: raw)
        #expect(report.format == .secure)
        #expect(report.parts.first?.imageCheck == .matches(.sha256(.littleEndian)))
    }
}
