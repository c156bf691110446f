import Foundation
import ProcessSpawning
import SystemSupport
import Testing
import TestSupport

/// What a spawned child inherits of this process's descriptors.
@Suite struct SpawnedProcessTests {
    /// The descriptors the child's shell has open, as it lists them in /proc, with a pipe made without
    /// close-on-exec (as Foundation's `Pipe` makes them) open in this process meanwhile; and that pipe's numbers.
    static func childDescriptors(inheriting: Bool) async throws -> (child: Set<Int32>, pipe: [Int32]) {
        try await offThePool {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-spawn-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let listing = folder.appendingPathComponent("fds").path
            var ends: [Int32] = [-1, -1]
            try #require(pipe(&ends) == 0)
            defer { _ = close(ends[0]); _ = close(ends[1]) }
            var options = SpawnedProcess.Options()
            options.appendedFiles = [(listing, .standardOutput)]
            options.inheritsDescriptors = inheriting
            let child = try SpawnedProcess(["/bin/sh", "-c", "for f in /proc/$$/fd/*; do echo \"${f##*/}\"; done"], options: options)
            #expect(child.waitForExit()?.status == 0)
            let text = try String(contentsOfFile: listing, encoding: .utf8)
            return (Set(text.split(separator: "\n").compactMap { Int32($0) }), ends)
        }
    }

    @Test func aChildGetsOnlyItsStandardDescriptorsByDefault() async throws {
        let (child, pipe) = try await Self.childDescriptors(inheriting: false)
        #expect(child.isSuperset(of: [0, 1, 2]))
        // (The shell itself may hold one more, the directory it lists.)
        #expect(child.isDisjoint(with: pipe), "the child holds \(child.intersection(pipe)) of this process's pipe")
    }

    @Test func aCommandThatInheritsDescriptorsKeepsThoseNotMarkedCloseOnExec() async throws {
        let (child, pipe) = try await Self.childDescriptors(inheriting: true)
        #expect(child.isSuperset(of: Set(pipe)))
    }
}
