@testable import DFUCore
import Testing
@testable import DFUFormats

/// The pieces of nrfutil 6.1.7's package generation that are easy to get subtly wrong.
@Suite struct PackageGenerationTests {
    // Orders printed by CPython 3.10.13: list(set([...])).
    @Test(arguments: [
        ([0xB7, 0x101, 0xAF, 0xA8, 0x0F, 0xB7], [257, 168, 15, 175, 183]),
        ([8, 16, 24, 32, 40, 48, 56, 64, 72], [32, 64, 8, 40, 72, 16, 48, 24, 56]),
        (Array(stride(from: 0, to: 200, by: 9)),
         [0, 135, 9, 144, 18, 153, 27, 162, 36, 171, 45, 180, 54, 189, 63, 198, 72, 81, 90, 99, 108, 117, 126]),
    ] as [([UInt64], [UInt64])])
    func setOrderIsCPythons(_ values: [UInt64], _ expected: [UInt64]) {
        #expect(PythonIntegerSet(values).elements == expected)
    }

    @Test func sdIDsJoinSdReqInCPythonsOrder() {
        // sd_req [0xB7, 0xAF] += set([0x101, 0xB7, 0x100]) - set(sd_req) → [183, 175, 256, 257]
        let added = PythonIntegerSet([0x101, 0xB7, 0x100]).subtracting(PythonIntegerSet([0xB7, 0xAF]))
        #expect(added.elements == [256, 257])
        #expect(PythonIntegerSet([0xB7, 0xAF] + added.elements).elements == [256, 175, 257, 183])
    }

    // CPython 3.10.13: set(a) - set(b) takes its copy-and-discard path when len(a) / 4 > len(b).
    @Test(arguments: [
        ([0x101, 0x100, 0xB7, 0xAF, 0x88, 0x8C, 0x91, 0x95, 0x98, 0x99], [0xB7],
         [256, 257, 136, 140, 175, 145, 149, 152, 153], [256, 257, 136, 140, 175, 145, 149, 183, 152, 153]),
        ([8, 16, 24, 32, 40, 48, 56, 64, 72, 80], [8],
         [32, 64, 40, 72, 16, 48, 80, 24, 56], [32, 64, 8, 40, 72, 16, 48, 80, 24, 56]),
    ] as [([UInt64], [UInt64], [UInt64], [UInt64])])
    func manySdIDsOverFewSdReqFollowCPythonsCopyPath(_ ids: [UInt64], _ req: [UInt64], _ difference: [UInt64], _ final: [UInt64]) {
        let added = PythonIntegerSet(ids).subtracting(PythonIntegerSet(req))
        #expect(added.elements == difference)
        #expect(PythonIntegerSet(req + added.elements).elements == final)
    }

    @Test(arguments: [
        ("0x1_0", 16), ("010", 8), ("1_000", 1000), (" 12 ", 12), ("0o17", 15), ("-5", -5), ("007", 7), ("000", 0),
        ("0xB7", 0xB7), ("183", 183),
    ] as [(String, Int64)])
    func integersReadAsNrfutilReadsThem(_ text: String, _ value: Int64) {
        #expect(NrfutilInteger.parse(text) == value)
    }

    @Test(arguments: ["08", "0x", "", "1__0", "0xZZ", "1.5"])
    func integersNrfutilRefusesAreRefused(_ text: String) {
        #expect(NrfutilInteger.parse(text) == nil)
    }

    @Test func binIsPaddedToAWholeWordWith0xFF() throws {
        #expect(try NordicImageFlattener.image(name: "a.bin", bytes: [1, 2, 3, 4, 5]) == [1, 2, 3, 4, 5, 0xFF, 0xFF, 0xFF])
    }

    @Test func hexDropsMBRAndUICRAndFillsGaps() throws {
        // :02 0FFE 00 AABB (0xFFE–0xFFF, MBR) ; :02 1000 00 0102 ; :01 1004 00 03 ; UICR word at 0x10001014
        let hex = """
            :020FFE00AABB8C
            :021000000102EB
            :0110040003E8
            :020000041000EA
            :041014000000000ACE
            :00000001FF

            """
        #expect(try NordicImageFlattener.image(name: "a.hex", bytes: Array(hex.utf8)) == [1, 2, 0xFF, 0xFF, 3, 0xFF, 0xFF, 0xFF])
    }

    @Test func manifestIsPythonsSortedIndentedJSONWithoutFinalNewline() {
        let json = NrfutilManifestWriter.json([
            .init(key: "softdevice_bootloader", binFile: "sd_bl.bin", datFile: "sd_bl.dat", sizes: (12300, 5000)),
            .init(key: "application", binFile: "é\"app.bin", datFile: "app.dat"),
        ])
        #expect(json == """
            {
                "manifest": {
                    "application": {
                        "bin_file": "\\u00e9\\"app.bin",
                        "dat_file": "app.dat"
                    },
                    "softdevice_bootloader": {
                        "bin_file": "sd_bl.bin",
                        "dat_file": "sd_bl.dat",
                        "info_read_only_metadata": {
                            "bl_size": 5000,
                            "sd_size": 12300
                        }
                    }
                }
            }
            """)
    }
}
