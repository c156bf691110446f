// Linux system headers that Glibc's Swift module leaves out: timerfd for the D-Bus pump's deadlines.
#include <sys/timerfd.h>
