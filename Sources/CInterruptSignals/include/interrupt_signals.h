// SIGINT and SIGTERM handled by a signal handler of C: what a handler may do is limited to
// async-signal-safe calls, which Swift code cannot promise.
#ifndef INTERRUPT_SIGNALS_H
#define INTERRUPT_SIGNALS_H

/// Installs one handler for SIGINT and SIGTERM. The first signal of either adds 1 to the eventfd
/// `counter` (whoever watches it starts an orderly stop); every later one ends the process at once
/// with status 130 (`_exit`), from the handler itself, so it works while the watcher is busy or
/// stuck. Returns 0, or -1 with errno set by sigaction.
int interrupt_signals_install(int counter);

#endif
