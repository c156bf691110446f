import DFUCore
import Testing
import DFUFormats

/// A manifest that is valid JSON is never called "not valid JSON".
@Suite struct ManifestWordingTests {
    @Test func aNumberTooLargeForItsFieldIsNamedWithItsPlace() {
        // 10^30 is a valid JSON number; no manifest field holds it.
        let json = #"{"manifest":{"softdevice_bootloader":{"bin_file":"sd_bl.bin","dat_file":"sd_bl.dat","info_read_only_metadata":{"bl_size":1000000000000000000000000000000,"sd_size":4096}}}}"#
        #expect(throws: PackageError.invalidManifest(
            cause: "the value at 'manifest.softdevice_bootloader.info_read_only_metadata.bl_size' is too large for its field")) {
            _ = try Manifest(json: Array(json.utf8))
        }
    }

    @Test func brokenTextIsStillNotValidJSON() {
        #expect(throws: PackageError.invalidManifest(cause: "the file is not valid JSON")) {
            _ = try Manifest(json: Array(#"{"manifest":{"application":"#.utf8))
        }
    }
}
