#include "interrupt_signals.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

static atomic_int counter_descriptor = -1;
static atomic_flag received = ATOMIC_FLAG_INIT;

static void on_interrupt(int signal_number) {
    (void)signal_number;
    if (atomic_flag_test_and_set(&received)) {
        _exit(130);
    }
    int saved = errno;
    uint64_t one = 1;
    ssize_t written = write(atomic_load(&counter_descriptor), &one, sizeof one);
    (void)written;
    errno = saved;
}

int interrupt_signals_install(int counter) {
    atomic_store(&counter_descriptor, counter);
    struct sigaction action = {0};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &action, NULL) != 0) return -1;
    if (sigaction(SIGTERM, &action, NULL) != 0) return -1;
    return 0;
}
