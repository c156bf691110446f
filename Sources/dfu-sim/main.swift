import BlueZStandIn
#if canImport(Glibc)
    import Glibc
#endif

// SIGINT and SIGTERM stop the command and everything dfu-sim started, then dfu-sim exits.
DFUSim.installSignalHandlers()
exit(await DFUSim.main(Array(CommandLine.arguments.dropFirst())))
