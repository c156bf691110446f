/// `dfu-bench`'s command line: which figures, how many runs, and where the programs it measures are.
struct BenchOptions {
    var json: String?
    var runs = 3
    var quick = false
    var swift = "swift"
    var binaries = ".build/release"
    var smpmgr = ".build/clients-venv/bin/smpmgr"
    /// nrfdfu, the peer client figure 7 measures beside `dfu`; nil: its column says it was not given.
    var peerNrfdfu: String?
    /// The `dfu` figure 7 measures: the one users get (`make static`, as `make install` and the package have it);
    /// nil: the one in `--bin`.
    var shippedDfu: String?
    var figures: Set<String> = ["1", "2", "3", "4", "5", "6", "7"]
    /// `--help` was given: print the usage and measure nothing.
    var helpWanted = false

    static let usage = "usage: dfu-bench [--json FILE] [--runs N] [--quick] [--swift PATH] [--bin DIR] [--smpmgr PATH]"
        + " [--peer-nrfdfu PATH] [--shipped-dfu PATH] [--figures 1,2,3,4,5,6,7]"

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = rest.popFirst()
            case "--runs": runs = rest.popFirst().flatMap { Int($0) } ?? runs
            case "--quick": quick = true
            case "--swift": swift = rest.popFirst() ?? swift
            case "--bin": binaries = rest.popFirst() ?? binaries
            case "--smpmgr": smpmgr = rest.popFirst() ?? smpmgr
            case "--peer-nrfdfu":
                guard let path = rest.popFirst(), !path.isEmpty else { throw BenchError.usage("--peer-nrfdfu needs the path of nrfdfu") }
                peerNrfdfu = path
            case "--shipped-dfu":
                guard let path = rest.popFirst(), !path.isEmpty else { throw BenchError.usage("--shipped-dfu needs the path of dfu") }
                shippedDfu = path
            case "--figures": figures = Set((rest.popFirst() ?? "").split(separator: ",").map(String.init))
            case "-h", "--help": helpWanted = true
            default: throw BenchError.usage("unknown argument \(argument) (see --help)")
            }
        }
    }

    /// Timed runs per figure: one with `--quick`.
    var timedRuns: Int { quick ? 1 : runs }
}
