import DBus
import Glibc
import Testing

@Suite struct OwnedFileDescriptorTests {
    @Test func closeClosesOnceAndNeverTouchesAReusedNumber() throws {
        var ends: [Int32] = [-1, -1]
        try #require(closeOnExecPipe(&ends))
        defer { Glibc.close(ends[0]) }
        let owner = OwnedFileDescriptor(taking: ends[1])
        owner.close()
        #expect(owner.rawValue == nil)
        // Whatever now holds that number must survive a second close.
        var again: [Int32] = [-1, -1]
        try #require(closeOnExecPipe(&again))
        defer {
            Glibc.close(again[0])
            Glibc.close(again[1])
        }
        owner.close()
        #expect(fcntl(again[0], F_GETFD) != -1)
        #expect(fcntl(again[1], F_GETFD) != -1)
    }

    @Test func releasingTheLastReferenceClosesTheDescriptor() throws {
        var ends: [Int32] = [-1, -1]
        try #require(closeOnExecPipe(&ends))
        defer { Glibc.close(ends[0]) }
        do {
            let owner = OwnedFileDescriptor(taking: ends[1])
            #expect(owner.rawValue == ends[1])
        }
        // With the only write end closed, the read end reports end of file.
        #expect(pollHangsUp(ends[0]))
    }

    @Test func takeRawValueHandsOwnershipOver() throws {
        var ends: [Int32] = [-1, -1]
        try #require(closeOnExecPipe(&ends))
        defer { Glibc.close(ends[0]) }
        let owner = OwnedFileDescriptor(taking: ends[1])
        let taken = try #require(owner.takeRawValue())
        owner.close()
        #expect(fcntl(taken, F_GETFD) != -1)
        Glibc.close(taken)
        #expect(owner.takeRawValue() == nil)
    }
}

/// Whether the read end of a pipe sees end of file (every write end closed), waiting at most
/// `milliseconds` for the last copy to be closed (other threads may still be releasing theirs).
func pollHangsUp(_ readEnd: Int32, waitingUpTo milliseconds: Int32 = 0) -> Bool {
    var descriptors = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
    guard poll(&descriptors, 1, milliseconds) == 1 else { return false }
    var byte: UInt8 = 0
    return read(readEnd, &byte, 1) == 0
}

/// `pipe` with both ends close-on-exec at once, so a process another suite spawns meanwhile does not
/// inherit a copy (which would keep the pipe from hanging up until that process exits).
func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
    guard pipe(&ends) == 0 else { return false }
    return ends.allSatisfy { fcntl($0, F_SETFD, FD_CLOEXEC) == 0 }
}
