#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls on paths rather than on open files.
public enum FileSystem {
    /// Makes the folder `path` with `permissions` (less the umask). The corresponding C function is `mkdir`.
    public static func makeDirectory(_ path: String, permissions: UInt32) throws(Errno) {
        _ = try SystemCall.once { mkdir(path, mode_t(permissions)) }
    }

    /// What `path` is (following symbolic links). The corresponding C function is `stat`.
    public static func status(of path: String) throws(Errno) -> FileStatus {
        var status = stat()
        _ = try SystemCall.once { stat(path, &status) }
        return FileStatus(status)
    }
}
