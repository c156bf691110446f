#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files with a size cap, through plain POSIX calls.
public enum FileReader {
    /// The largest file `dfu` reads (a DFU package is far smaller).
    public static let sizeLimit = 64 * 1024 * 1024

    /// Reads the file at `path`.
    ///
    /// The corresponding C functions are `open`, `fstat` and `read`.
    /// Only regular files are read: a FIFO, a device or a socket is refused without waiting on it
    /// (the open does not block, as it would on a FIFO without a writer).
    @Sendable public static func read(_ path: String) throws(FileReadError) -> [UInt8] {
        guard !path.isEmpty else { throw FileReadError(path: path, reason: "the file name is empty") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw FileReadError(path: path, reason: describe(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileReadError(path: path, reason: describe(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw FileReadError(path: path, reason: "is a directory")
        }
        if (info.st_mode & S_IFMT) != S_IFREG {
            throw FileReadError(path: path, reason: "is not a regular file")
        }
        if Int(info.st_size) > sizeLimit {
            throw FileReadError(path: path, reason: "larger than \(sizeLimit / 1024 / 1024) MiB")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, reason: describe(errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > sizeLimit {
                throw FileReadError(path: path, reason: "larger than \(sizeLimit / 1024 / 1024) MiB")
            }
        }
        return bytes
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES: "permission denied"
        case EISDIR: "is a directory"
        default: String(cString: strerror(code))
        }
    }
}
