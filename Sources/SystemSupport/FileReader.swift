#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files with a size cap, through ``FileDescriptor``.
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
        func call<T>(_ body: () throws(Errno) -> T) throws(FileReadError) -> T {
            do { return try body() } catch { throw FileReadError(path: path, reason: describe(error)) }
        }
        let fd = try call { () throws(Errno) in try FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .nonBlocking]) }
        defer { try? fd.close() }
        let status = try call { () throws(Errno) in try fd.status() }
        switch status.kind {
        case .directory: throw FileReadError(path: path, reason: "is a directory")
        case .symbolicLink, .other: throw FileReadError(path: path, reason: "is not a regular file")
        case .regular: break
        }
        let tooLarge = FileReadError(path: path, reason: "larger than \(sizeLimit / 1024 / 1024) MiB")
        if status.size > sizeLimit { throw tooLarge }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let result = chunk.withUnsafeMutableBytes { buffer in Result { () throws(Errno) in try fd.read(into: buffer) } }
            let count = try call { () throws(Errno) in try result.get() }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > sizeLimit { throw tooLarge }
        }
    }

    private static func describe(_ error: Errno) -> String {
        switch error {
        case .noSuchFileOrDirectory: "no such file"
        case .permissionDenied: "permission denied"
        case .isDirectory: "is a directory"
        default: error.description
        }
    }
}
