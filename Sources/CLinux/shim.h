// Linux system headers that Glibc's Swift module leaves out: epoll, eventfd and timerfd for the event loop.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
