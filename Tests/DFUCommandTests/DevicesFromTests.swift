import DFUCommand
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
}
