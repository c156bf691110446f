#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole files so that a reader sees the old file or the complete new one, never a part:
/// the bytes go to a temporary file beside the target, which is then renamed over it.
enum FileWriter {
    /// Writes `bytes` to `path` (mode 0666 less the umask, or `mode` when given).
    ///
    /// The corresponding C functions are `mkstemp`, `write`, `fsync`, `fchmod` and `rename`.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t? = nil) throws(FileWriteError) {
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let base = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        guard !base.isEmpty else { throw FileWriteError(path: path, reason: "is a directory") }
        var template = Array("\(directory).\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw FileWriteError(path: path, reason: describe(errno)) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: Int32? = nil
        var written = 0
        while written < bytes.count, failure == nil {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + written }, $0.count - written) }
            if count < 0 {
                if errno != EINTR { failure = errno }
            } else {
                written += count
            }
        }
        let permissions = mode ?? (0o666 & ~currentUmask())
        if failure == nil, fchmod(fd, permissions) != 0 || fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw FileWriteError(path: path, reason: describe(failure))
        }
    }

    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such directory"
        case EACCES: "permission denied"
        case EISDIR: "is a directory"
        default: String(cString: strerror(code))
        }
    }
}
