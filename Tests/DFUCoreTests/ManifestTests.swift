import DFUCore
import Testing
import DFUFormats

@Suite struct ManifestTests {
    static func parse(_ json: String) throws(PackageError) -> Manifest {
        try Manifest(json: Array(json.utf8))
    }

    @Test func secureManifestTakesSizesFromMetadata() throws {
        let manifest = try Self.parse(
            #"{"manifest":{"softdevice_bootloader":{"bin_file":"sd_bl.bin","dat_file":"sd_bl.dat","info_read_only_metadata":{"bl_size":41056,"sd_size":136360}}}}"#)
        #expect(manifest.format == .secure)
        #expect(manifest.dfuVersion == nil)
        #expect(manifest.entries.first?.softdeviceSize == 136_360)
        #expect(manifest.entries.first?.bootloaderSize == 41056)
    }

    @Test func entryLevelSizesAreReadToo() throws {
        // As in a 2016 Secure package and in every Legacy one.
        let manifest = try Self.parse(#"{"manifest":{"softdevice_bootloader":{"bin_file":"a","dat_file":"b","sd_size":8,"bl_size":4}}}"#)
        #expect(manifest.format == .secure)
        #expect(manifest.entries.first?.softdeviceSize == 8)
        #expect(manifest.entries.first?.bootloaderSize == 4)
    }

    @Test(arguments: [
        #"{"manifest":{"application":{"bin_file":"a","dat_file":"b"},"dfu_version":0.5}}"#,
        #"{"manifest":{"application":{"bin_file":"a","dat_file":"b","init_packet_data":{"firmware_crc16":1}}}}"#,
    ])
    func dfuVersionOrInitPacketDataMeansLegacy(_ json: String) throws {
        #expect(try Self.parse(json).format == .legacy)
    }

    @Test func entriesComeInUploadOrder() throws {
        let manifest = try Self.parse(
            #"{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"},"softdevice":{"bin_file":"sd.bin","dat_file":"sd.dat"}}}"#)
        #expect(manifest.entries.map(\.kind) == [.softdevice, .application])
        #expect(manifest.entries.map(\.binFile) == ["sd.bin", "app.bin"])
    }

    @Test func topLevelKeysBesideManifestAreIgnored() throws {
        #expect(try Self.parse(#"{"comment":"x","manifest":{"application":{"bin_file":"a","dat_file":"b"}}}"#).entries.count == 1)
    }
}
