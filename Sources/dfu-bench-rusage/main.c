// dfu-bench-rusage COMMAND [ARGUMENT...]: runs COMMAND and, when it ends, writes one line on
// standard error with what it used, from wait4(2) in microseconds (GNU time prints 10 ms steps):
//   dfu-bench-rusage: status=0 wall_us=… user_us=… sys_us=… maxrss_kb=… nvcsw=… nivcsw=…
// It is a small C program on purpose: Linux carries the peak RSS of the process image that execs
// the command into the command's own figure, so the wrapper must be smaller than what it measures.
// Exits with the command's status (128 + signal when it was killed).
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long microseconds(struct timeval value) {
    return (long long)value.tv_sec * 1000000 + value.tv_usec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: dfu-bench-rusage COMMAND [ARGUMENT...]\n");
        return 64;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "dfu-bench-rusage: fork: %s\n", strerror(errno));
        return 71;
    }
    if (child == 0) {
        execvp(argv[1], argv + 1);
        fprintf(stderr, "dfu-bench-rusage: %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "dfu-bench-rusage: wait4: %s\n", strerror(errno));
            return 71;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long wall = (long long)(end.tv_sec - start.tv_sec) * 1000000 + (end.tv_nsec - start.tv_nsec) / 1000;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(stderr, "dfu-bench-rusage: status=%d wall_us=%lld user_us=%lld sys_us=%lld maxrss_kb=%ld nvcsw=%ld nivcsw=%ld\n",
            code, wall, microseconds(usage.ru_utime), microseconds(usage.ru_stime), usage.ru_maxrss, usage.ru_nvcsw,
            usage.ru_nivcsw);
    return code;
}
