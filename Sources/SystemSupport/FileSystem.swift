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

    /// What `path` itself is, a symbolic link included (not followed). The corresponding C function is `lstat`.
    public static func linkStatus(of path: String) throws(Errno) -> FileStatus {
        var status = stat()
        _ = try SystemCall.once { lstat(path, &status) }
        return FileStatus(status)
    }

    /// Whether this process may make and remove entries in the folder `path`; the error says why not.
    /// The corresponding C function is `access` with `W_OK`.
    public static func checkWritable(_ path: String) throws(Errno) {
        _ = try SystemCall.once { access(path, W_OK) }
    }

    /// What `path` is (following symbolic links). The corresponding C function is `stat`.
    public static func status(of path: String) throws(Errno) -> FileStatus {
        var status = stat()
        _ = try SystemCall.once { stat(path, &status) }
        return FileStatus(status)
    }
}

extension FileSystem {
    /// Makes a new folder, private to this user (0700), named `prefix` and six random characters.
    /// The corresponding C function is `mkdtemp`.
    public static func makeTemporaryDirectory(prefix: String) throws(Errno) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard made != nil else { throw Errno.current }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the file (or link) `path`. The corresponding C function is `unlink`.
    public static func removeFile(_ path: String) throws(Errno) {
        _ = try SystemCall.once { unlink(path) }
    }

    /// Removes the empty folder `path`. The corresponding C function is `rmdir`.
    public static func removeDirectory(_ path: String) throws(Errno) {
        _ = try SystemCall.once { rmdir(path) }
    }
}

extension FileSystem {
    /// Whether this process may run the file at `path`. The corresponding C function is `access` with `X_OK`.
    public static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }
}
