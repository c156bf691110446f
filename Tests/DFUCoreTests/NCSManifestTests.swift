import DFUCore
import Testing
import DFUFormats

/// nRF Connect SDK `manifest.json` files, as sdk-nrf's scripts/bootloader/generate_zip.py writes them.
@Suite struct NCSManifestTests {
    static let image = MCUbootImageTests.image()

    static func manifest(_ files: String) -> [UInt8] {
        Array(#"{"format-version": 0, "time": 1700000000, "files": [\#(files)]}"#.utf8)
    }

    @Test func numbersAreReadAsIntegersOrStrings() throws {
        // generate_zip.py turns 0x… values into integers and keeps the others as strings.
        let json = Self.manifest(
            #"{"type": "application", "load_address": 65536, "image_index": "0", "slot_index_primary": "1", "slot_index_secondary": "2", "version_MCUBOOT": "1.0.0+0", "size": 10, "file": "app.bin", "modtime": 1}"#
                + #", {"load_address": "0x1008800", "image_index": 1, "slot": "3", "version": "2.0.0", "file": "net.bin"}"#)
        let manifest = try NCSManifest(json: json)
        #expect(manifest.formatVersion == 0)
        #expect(manifest.entries.map(\.imageIndex) == [0, 1])
        #expect(manifest.entries.map(\.loadAddress) == [0x10000, 0x100_8800])
        #expect(manifest.entries.map(\.slot) == [1, 3])
        #expect(manifest.entries.map(\.version) == ["1.0.0+0", "2.0.0"])
        #expect(manifest.entries[0].size == 10)
    }

    @Test func nrf5ManifestIsNotAnNCSManifest() {
        #expect(!NCSManifest.isNCSManifest(Array(#"{"manifest": {"application": {"bin_file": "a.bin", "dat_file": "a.dat"}}}"#.utf8)))
        #expect(!NCSManifest.isNCSManifest(Array(#"{"files": [], "manifest": {}}"#.utf8)))
        #expect(!NCSManifest.isNCSManifest(Array("not json".utf8)))
        #expect(NCSManifest.isNCSManifest(Self.manifest("")))
    }

    @Test(arguments: [
        (#"{"files": []}"#, MCUbootError.noImages),
        (#"{"files": [{"size": 3}]}"#, MCUbootError.invalidManifest(cause: "key 'file' is missing in 'files.0'")),
        (#"{"files": [{"file": "a.bin", "image_index": "zero"}]}"#, MCUbootError.invalidManifest(cause: "'files.0.image_index' is invalid")),
        (#"{"files": [{"file": "a.bin", "load_address": -1}]}"#, MCUbootError.invalidManifest(cause: "'files.0.load_address' has the wrong type")),
        ("[1, 2", MCUbootError.invalidManifest(cause: "not valid JSON")),
    ])
    func badManifestIsNamed(json: String, error: MCUbootError) {
        #expect(throws: error) { try NCSManifest(json: Array(json.utf8)) }
    }

    @Test func memberSizeMustMatchTheManifest() {
        let entries = ["manifest.json": Self.manifest(#"{"file": "app.bin", "size": 999}"#), "app.bin": Self.image]
        #expect(throws: MCUbootError.sizeMismatch(name: "app.bin", manifestSize: 999, actualSize: Self.image.count)) {
            try MCUbootPackageReport.inspect(entries: entries)
        }
    }

    @Test func listedMemberMustBeThere() {
        let entries = ["manifest.json": Self.manifest(#"{"file": "net.bin"}"#), "app.bin": Self.image]
        #expect(throws: MCUbootError.missingMember(name: "net.bin")) { try MCUbootPackageReport.inspect(entries: entries) }
    }

    @Test func mcubootZipWithoutImageIndexIsRead() throws {
        // dfu_mcuboot.zip (cmake/sysbuild/b0_mcuboot_signing.cmake): two MCUboot variants, no image_index.
        let json = Array(
            #"{"format-version": 0, "time": 1, "files": [{"type": "mcuboot", "version_MCUBOOT": "1.2.3", "version_B0": "2", "load_address": 32768, "file": "s0.bin", "size": \#(Self.image.count)}, {"type": "mcuboot", "load_address": 229376, "file": "s1.bin"}]}"#.utf8)
        let report = try MCUbootPackageReport.inspect(entries: ["manifest.json": json, "s0.bin": Self.image, "s1.bin": Self.image])
        try report.check()
        #expect(report.images.map(\.imageIndex) == [nil, nil])
        #expect(report.images.map { $0.manifestEntry?.type } == ["mcuboot", "mcuboot"])
    }
}
