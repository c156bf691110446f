#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole files so that a reader sees the old file or the complete new one, never a part:
/// the bytes go to a temporary file beside the target, which is then renamed over it.
public enum FileWriter {
    /// Writes `bytes` to `path` (mode 0666 less the umask, or `mode` when given). With `replacing`
    /// false an existing file at `path` is never replaced, even one made while these bytes were
    /// written: the complete file is linked in under its name, which fails if the name is taken.
    ///
    /// The corresponding C functions are `mkstemp`, `write`, `fsync`, `fchmod`, `rename` and `link`.
    public static func writeAtomically(
        _ bytes: [UInt8], to path: String, mode: UInt32? = nil, replacing: Bool = true
    ) throws(FileWriteError) {
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let base = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        guard !base.isEmpty else { throw FileWriteError(path: path, reason: "is a directory") }
        var template = Array("\(directory).\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw FileWriteError(path: path, reason: describe(errno)) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let file = FileDescriptor(rawValue: fd)
        var failure: Int32? = nil
        do throws(Errno) {
            try file.writeAll(bytes)
        } catch {
            failure = error.rawValue
        }
        let permissions = mode.map { mode_t($0) } ?? (0o666 & ~currentUmask())
        if failure == nil, fchmod(fd, permissions) != 0 || fsync(fd) != 0 { failure = errno }
        do throws(Errno) { try file.close() } catch { failure = failure ?? error.rawValue }
        if failure == nil {
            if replacing {
                if rename(temporary, path) != 0 { failure = errno }
            } else {
                if link(temporary, path) != 0 { failure = errno }
                unlink(temporary)
            }
        }
        if let failure {
            unlink(temporary)
            throw FileWriteError(path: path, reason: failure == EEXIST ? "exists; it was not replaced" : describe(failure))
        }
    }

    /// The option of `inputs` whose file `output` is, by name or as the same file under another
    /// name (a link, `./`), or nil: a command never writes over what it reads.
    ///
    /// The corresponding C function is `stat`.
    public static func inputOverwritten(by output: String, inputs: [(option: String, path: String)]) -> String? {
        let outputStatus = try? FileSystem.status(of: output)
        for input in inputs {
            if input.path == output { return input.option }
            if let outputStatus, let inputStatus = try? FileSystem.status(of: input.path), inputStatus.isSameFile(as: outputStatus) {
                return input.option
            }
        }
        return nil
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
