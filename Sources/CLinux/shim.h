// Linux system headers that Glibc's Swift module leaves out: epoll, eventfd and timerfd for the event
// loop, and pidfd_open (a system call without a C library function in older glibc) for waiting on a
// child with a deadline.
#include <errno.h>
#include <spawn.h>
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

// glibc 2.34's file action that closes every descriptor from `from` up in the child; <spawn.h> declares it only
// with _GNU_SOURCE, which Glibc's Swift module is built without.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// Closes every descriptor from `from` up in the spawned child, as its last file action.
static inline int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
