import Glibc
import SystemSupport
import Testing

/// The one retry helper: a call that fails with EINTR is made again, any other failure is thrown as
/// its ``Errno``, and ``SystemCall/once(_:)`` never repeats a call.
@Suite struct SystemCallTests {
    @Test func aCallInterruptedBySignalIsMadeAgain() throws {
        var calls = 0
        let result = try SystemCall.retryingOnInterrupt { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 3)
    }

    @Test func anyOtherFailureIsThrownAsItsErrnoWithoutRetrying() {
        var calls = 0
        #expect(throws: Errno.brokenPipe) {
            try SystemCall.retryingOnInterrupt { () -> Int in
                calls += 1
                errno = EPIPE
                return -1
            }
        }
        #expect(calls == 1)
    }

    @Test func onceDoesNotRepeatAnInterruptedCall() {
        var calls = 0
        #expect(throws: Errno.interrupted) {
            try SystemCall.once { () -> Int32 in
                calls += 1
                errno = EINTR
                return -1
            }
        }
        #expect(calls == 1)
    }

    @Test func aNegativeResultOtherThanMinusOneIsAResult() throws {
        // Not every call fails with -1 alone; only -1 means "see errno".
        #expect(try SystemCall.once { Int32(-2) } == -2)
    }

    @Test func anErrnoReadsAsTheCLibrarysText() {
        #expect(Errno.brokenPipe.description == "Broken pipe")
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory")
        #expect(Errno(rawValue: EAGAIN) == .wouldBlock)
    }
}
