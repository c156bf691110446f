import DFUBenchmarks
import Glibc

exit(await BenchCommand.main(Array(CommandLine.arguments.dropFirst())))
