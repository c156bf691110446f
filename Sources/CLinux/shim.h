// Linux system headers that Glibc's Swift module leaves out: epoll, eventfd and timerfd for the event
// loop, and pidfd_open (a system call without a C library function in older glibc) for waiting on a
// child with a deadline.
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

/// A descriptor that becomes readable when process `pid` ends (Linux 5.3), or -1 with errno set.
static inline int clinux_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
