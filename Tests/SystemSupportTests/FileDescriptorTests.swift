import Foundation
import SystemSupport
import Testing

/// The calls made on descriptors, on real sockets and files in a temporary folder.
@Suite struct FileDescriptorTests {
    @Test func aSequencedPacketPairKeepsEachPacketWhole() throws {
        let (ours, theirs) = try FileDescriptor.socketPair(.sequencedPacket)
        defer {
            try? ours.close()
            try? theirs.close()
        }
        for packet: [UInt8] in [[0x01, 0x02, 0x03], [0x04]] {
            let sent = try packet.withUnsafeBytes { buffer in try ours.send(buffer, options: [.dontWait, .noSignal]) }
            #expect(sent == packet.count)
        }
        var buffer = [UInt8](repeating: 0, count: 16)
        let first = try buffer.withUnsafeMutableBytes { bytes in try theirs.receive(into: bytes, options: .dontWait) }
        #expect(Array(buffer[0..<first]) == [0x01, 0x02, 0x03])
        let second = try buffer.withUnsafeMutableBytes { bytes in try theirs.receive(into: bytes, options: .dontWait) }
        #expect(Array(buffer[0..<second]) == [0x04])
    }

    @Test func receivingFromAnEmptySocketWithoutWaitingSaysItWouldBlock() throws {
        let (ours, theirs) = try FileDescriptor.socketPair(.sequencedPacket)
        defer {
            try? ours.close()
            try? theirs.close()
        }
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: Errno.wouldBlock) {
            try buffer.withUnsafeMutableBytes { bytes in try theirs.receive(into: bytes, options: .dontWait) }
        }
    }

    @Test func afterThePeerClosesAReceiveReadsTheEndAndASendSaysBrokenPipe() throws {
        let (ours, theirs) = try FileDescriptor.socketPair(.sequencedPacket)
        defer { try? ours.close() }
        try theirs.close()
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try buffer.withUnsafeMutableBytes { bytes in try ours.receive(into: bytes, options: .dontWait) } == 0)
        #expect(throws: Errno.brokenPipe) {
            try [UInt8]([1]).withUnsafeBytes { bytes in try ours.send(bytes, options: [.dontWait, .noSignal]) }
        }
        #expect(try ours.poll(for: .readable, timeout: .zero).contains(.hangUp))
    }

    @Test func sentBytesThePeerHasNotReadAreCounted() throws {
        let (ours, theirs) = try FileDescriptor.socketPair(.sequencedPacket)
        defer {
            try? ours.close()
            try? theirs.close()
        }
        #expect(try ours.queuedOutputByteCount() == 0)
        _ = try [UInt8](repeating: 0xAA, count: 20).withUnsafeBytes { bytes in try ours.send(bytes) }
        #expect(try ours.queuedOutputByteCount() > 0)
    }

    @Test func openingAMissingFileNamesTheCause() {
        #expect(throws: Errno.noSuchFileOrDirectory) {
            try FileDescriptor.open("/nonexistent-\(UUID().uuidString)", .readOnly)
        }
    }

    @Test func aFileWrittenAtAnOffsetReadsBackAndItsStatusSaysWhatItIs() throws {
        let folder = try TemporaryFolder()
        let folderFD = try FileDescriptor.open(folder.path, .readOnly, options: [.directory, .closeOnExec])
        defer { try? folderFD.close() }
        let file = try FileDescriptor.open(
            "note", .readWrite, options: [.create, .noFollow, .closeOnExec], permissions: 0o600, in: folderFD)
        defer { try? file.close() }
        try file.writeAll(Array("12345\n".utf8))
        try file.truncate(to: 0)
        _ = try Array("678\n".utf8).withUnsafeBytes { bytes in try file.write(bytes, at: 0) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { bytes in try file.read(into: bytes, at: 0) }
        #expect(String(decoding: buffer[0..<count], as: UTF8.self) == "678\n")
        let status = try file.status()
        #expect(status.kind == .regular)
        #expect(status.size == 4)
        #expect(status.linkCount == 1)
        #expect(status.permissions & 0o077 == 0)
        #expect(try folderFD.status(ofEntry: "note").isSameFile(as: status))
        #expect(try folderFD.status().kind == .directory)
        try folderFD.removeEntry(named: "note")
        #expect(throws: Errno.noSuchFileOrDirectory) { try folderFD.status(ofEntry: "note") }
    }

    @Test func openingASymbolicLinkWithNoFollowIsRefused() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: "/etc/hostname")
        #expect(throws: Errno.tooManySymbolicLinks) {
            try FileDescriptor.open(folder.path + "/link", .readOnly, options: [.noFollow, .closeOnExec])
        }
    }

    @Test func aSecondOpenFileCannotTakeTheLockTheFirstHolds() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/lock"
        let first = try FileDescriptor.open(path, .readWrite, options: [.create, .closeOnExec], permissions: 0o600)
        let second = try FileDescriptor.open(path, .readWrite, options: [.closeOnExec])
        defer { try? second.close() }
        try first.lockExclusivelyWithoutWaiting()
        #expect(throws: Errno.wouldBlock) { try second.lockExclusivelyWithoutWaiting() }
        try first.close()
        try second.lockExclusivelyWithoutWaiting()
    }

    @Test func makingAFolderThatExistsSaysSo() throws {
        let folder = try TemporaryFolder()
        #expect(throws: Errno.fileExists) { try FileSystem.makeDirectory(folder.path, permissions: 0o700) }
        try FileSystem.makeDirectory(folder.path + "/inner", permissions: 0o700)
        #expect(try FileSystem.status(of: folder.path + "/inner").kind == .directory)
    }
}

/// A fresh folder under the temporary directory, removed when the value goes.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "system-support-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
