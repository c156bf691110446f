import CLinux
import SystemSupport
import Testing

/// A close of an epoll descriptor that no ``EpollSet`` made (as libdispatch makes its own) stops a debug build at
/// the closer, instead of libdispatch trapping later with no place named.
@Suite(.enabled(if: _isDebugAssertConfiguration(), "the check is an assertion: debug builds only"))
struct EpollOwnershipTests {
    @Test func anEpollSetClosesItsOwnDescriptor() throws {
        let epoll = try EpollSet()
        try epoll.close()
    }

    @Test func closingAnEpollDescriptorNoEpollSetMadeStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            // libdispatch's kind of descriptor: made with epoll_create1 directly, closed through a stale number.
            let foreign = epoll_create1(Int32(EPOLL_CLOEXEC))
            try? FileDescriptor(rawValue: foreign).close()
        }
    }

    @Test func otherDescriptorsCloseAsBefore() throws {
        let counter = try EventCounter()
        try counter.close()
    }
}
