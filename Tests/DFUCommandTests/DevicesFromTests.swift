@testable import DFUCommand
import Foundation
import Testing

/// `--devices-from`: comments after an entry, a byte order mark, and several files.
@Suite struct DevicesFromTests {
    static let first = "C0:FF:EE:00:00:01", second = "C0:FF:EE:00:00:02", third = "C0:FF:EE:00:00:03"

    static func rig() -> SimulatedRig {
        SimulatedRig([first: SimulatedRig.secureDevice(first), second: SimulatedRig.secureDevice(second),
                      third: SimulatedRig.secureDevice(third)])
    }

    @Test func inlineCommentsAndAByteOrderMarkAreNotPartOfTheNames() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let listA = folder.appendingPathComponent("a.txt"), listB = folder.appendingPathComponent("b.txt")
        try Data("\u{FEFF}\(Self.first)  # bench slot 1\n# spare\n\(Self.second)\t# slot 2\n".utf8).write(to: listA)
        try Data("\(Self.third) # the third, from another file\n".utf8).write(to: listB)
        let run = await Self.rig().dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"),
                                        "--devices-from", listA.path, "--devices-from", listB.path, "--json"])
        #expect(run.code == .success, "\(run.error)")
        let done = run.output.split(separator: "\n").filter { $0.contains("\"event\":\"done\"") }
        #expect(done.count == 3)
        for address in [Self.first, Self.second, Self.third] {
            #expect(done.contains { $0.contains("\"device\":\"\(address)\"") && $0.contains("\"result\":\"updated\"") }, "\(address)")
        }
    }

    /// A file that is not a device list (here lines shaped like /etc/shadow's) is refused by line
    /// number: nothing of it is echoed and no device is looked for.
    @Test func aFileThatIsNotADeviceListIsRefusedByLineNumberWithoutEchoingIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("shadow")
        try Data("root:$y$j9T$secretsalt$secrethash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n".utf8).write(to: file)
        let rig = Self.rig()
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"), "--devices-from", file.path])
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1, "\(run.error)")
        #expect(run.error.contains("\(file.path) line 1 is not an address"), "\(run.error)")
        #expect(!run.error.contains("secret") && !run.output.contains("secret") && !run.error.contains("daemon"))
        #expect(rig.adapters.isEmpty, "no device was looked for")
    }

    @Test(arguments: [
        ("C0:FF:EE:00:00", "line 2 is not an address"),  // a mistyped address is not a name
        (String(repeating: "n", count: 249), "line 2 longer than a device name (248 bytes)"),
        ("bad\u{1B}[2Jname", "line 2 holds control characters"),
    ])
    func anEntryThatCannotBeADeviceIsRefusedByLineNumber(_ entry: String, _ message: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-list-\(UUID().uuidString).txt")
        try Data("\(Self.first)\n\(entry)\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let rig = Self.rig()
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"), "--devices-from", file.path])
        #expect(run.code == .usage)
        #expect(run.error.contains(message), "\(run.error)")
        #expect(!run.error.contains("\u{1B}"))
        #expect(rig.adapters.isEmpty, "no device was looked for, not even the valid first line")
    }

    @Test func aNameOfPrintableWordsUpTo248BytesIsADevice() throws {
        let targets = try DeviceTarget.list(fromFile: "Zephyr\nDfuTarg # nRF5\n\(String(repeating: "é", count: 124))\n")
        #expect(targets.map(\.label) == ["Zephyr", "DfuTarg", String(repeating: "é", count: 124)])
    }
}
