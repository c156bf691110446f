import BlueZStandIn
#if canImport(Glibc)
import Glibc
#endif

// Signals are taken with sigtimedwait, so they must be blocked before any thread starts.
DFUSim.blockTerminationSignals()
exit(await DFUSim.main(Array(CommandLine.arguments.dropFirst())))
