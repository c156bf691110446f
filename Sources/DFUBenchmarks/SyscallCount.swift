/// Call counts from the summary `strace -c` writes: one row per system call, the calls in the
/// fourth column and the name in the last.
public struct SyscallCount: Sendable, Hashable {
    /// Calls by system call name.
    public var calls: [String: Int] = [:]

    /// Reads the summary table out of `text`; rows that are not a count are ignored.
    public init(parsing text: String) {
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: " ")
            // "% time seconds usecs/call calls [errors] syscall"
            guard columns.count >= 5, Double(columns[0]) != nil, let name = columns.last,
                let count = Int(columns[3]), name != "total", name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
            else { continue }
            calls[String(name), default: 0] += count
        }
    }

    /// The calls of every name in `names`.
    public func total(_ names: [String]) -> Int { names.reduce(0) { $0 + (calls[$1] ?? 0) } }
}
