import SystemSupport

/// `posix_spawn` failed for `program` with `code` (an errno value).
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    public let program: String
    public let code: Int32

    public var description: String {
        program.isEmpty ? "no command to run" : "cannot run \(program): \(Errno(rawValue: code).description)"
    }
}
