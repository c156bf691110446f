#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file descriptor number and the system calls made on it. It owns nothing: whoever opened it
/// closes it (``close()``), once. Every call that a signal can interrupt is made again after `EINTR`.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let standardInput = FileDescriptor(rawValue: STDIN_FILENO)
    public static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO)
    public static let standardError = FileDescriptor(rawValue: STDERR_FILENO)

    public var description: String { "fd \(rawValue)" }

    /// How a file is opened for reading and writing.
    public enum AccessMode: Sendable {
        case readOnly, writeOnly, readWrite

        var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// The other flags of `open`.
    public struct OpenOptions: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// `O_CREAT`: make the file when absent.
        public static let create = OpenOptions(rawValue: O_CREAT)
        /// `O_DIRECTORY`: fail unless it is a folder.
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_NOFOLLOW`: fail on a symbolic link.
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// `O_NONBLOCK`.
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// `O_CLOEXEC`: not inherited by a program this process starts.
        public static let closeOnExec = OpenOptions(rawValue: O_CLOEXEC)
    }

    /// Opens `path`, relative to the folder open as `directory` when given (`openat`), else to the
    /// current folder. `permissions` apply to a file `.create` makes (less the umask).
    ///
    /// The corresponding C function is `openat`.
    public static func open(
        _ path: String, _ mode: AccessMode, options: OpenOptions = [.closeOnExec], permissions: UInt32 = 0o666,
        in directory: FileDescriptor? = nil
    ) throws(Errno) -> FileDescriptor {
        let base = directory?.rawValue ?? AT_FDCWD
        let flags = mode.flags | options.rawValue
        return FileDescriptor(
            rawValue: try SystemCall.retryingOnInterrupt { openat(base, path, flags, mode_t(permissions)) })
    }

    /// Closes the number. Not repeated after `EINTR`: on Linux the number is released whatever `close` says.
    ///
    /// A number closed twice is a programming error, caught in debug builds (the tests): `EBADF` here means it was
    /// closed already, and had another owner taken the number meanwhile, the second close would have ended that
    /// owner's descriptor (libdispatch's epoll descriptor, say: its event loop then traps with SIGILL, "Do not
    /// close random Unix descriptors").
    ///
    /// A close of an epoll descriptor that no ``EpollSet`` made (libdispatch's: a stale number its old owner already
    /// closed) is caught in debug builds too, before it happens (``EpollOwnership``).
    ///
    /// The corresponding C function is `close`.
    public func close() throws(Errno) {
        assert(!EpollOwnership.isForeignEpoll(rawValue), "descriptor \(rawValue) is an epoll descriptor this code did not make (libdispatch's?): a stale number")
        try closeWithoutOwnershipCheck()
    }

    /// ``close()`` without the check of epoll descriptors, for ``EpollSet`` closing its own.
    func closeWithoutOwnershipCheck() throws(Errno) {
        do {
            _ = try SystemCall.once { Glibc.close(rawValue) }
        } catch {
            assert(error != .badFileDescriptor, "descriptor \(rawValue) closed twice")
            throw error
        }
    }

    /// Reads at most `buffer.count` bytes; 0 at the end of the file.
    ///
    /// The corresponding C function is `read`, or `pread` with `offset`.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64? = nil) throws(Errno) -> Int {
        try SystemCall.retryingOnInterrupt {
            if let offset { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) } else {
                Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            }
        }
    }

    /// Writes at most `buffer.count` bytes and says how many were written.
    ///
    /// The corresponding C function is `write`, or `pwrite` with `offset`.
    public func write(_ buffer: UnsafeRawBufferPointer, at offset: Int64? = nil) throws(Errno) -> Int {
        try SystemCall.retryingOnInterrupt {
            if let offset { pwrite(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) } else {
                Glibc.write(rawValue, buffer.baseAddress, buffer.count)
            }
        }
    }

    /// Writes all of `bytes`, continuing after partial writes.
    public func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        let array = Array(bytes)
        var written = 0
        while written < array.count {
            let result = array.withUnsafeBytes { buffer in
                Result { () throws(Errno) in try write(UnsafeRawBufferPointer(rebasing: buffer[written...])) }
            }
            written += try result.get()
        }
    }

    /// Cuts the file to `length` bytes. The corresponding C function is `ftruncate`.
    public func truncate(to length: Int64) throws(Errno) {
        _ = try SystemCall.retryingOnInterrupt { ftruncate(rawValue, off_t(length)) }
    }

    /// A new number for the same open file, closed on exec. The corresponding C function is `fcntl`
    /// with `F_DUPFD_CLOEXEC`.
    public func duplicate() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try SystemCall.once { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) })
    }

    /// Makes `target` a copy of this descriptor (closing what `target` was), not closed on exec.
    /// The corresponding C function is `dup2`.
    public func duplicate(as target: FileDescriptor) throws(Errno) {
        _ = try SystemCall.retryingOnInterrupt { dup2(rawValue, target.rawValue) }
    }

    /// What the file is, who owns it, its links. The corresponding C function is `fstat`.
    public func status() throws(Errno) -> FileStatus {
        var status = stat()
        _ = try SystemCall.once { fstat(rawValue, &status) }
        return FileStatus(status)
    }

    /// The entry `name` of the folder open as this descriptor, not following a symbolic link.
    /// The corresponding C function is `fstatat` with `AT_SYMLINK_NOFOLLOW`.
    public func status(ofEntry name: String) throws(Errno) -> FileStatus {
        var status = stat()
        _ = try SystemCall.once { fstatat(rawValue, name, &status, AT_SYMLINK_NOFOLLOW) }
        return FileStatus(status)
    }

    /// Removes the entry `name` of the folder open as this descriptor. The corresponding C function is `unlinkat`.
    public func removeEntry(named name: String) throws(Errno) {
        _ = try SystemCall.once { unlinkat(rawValue, name, 0) }
    }

    /// Takes the exclusive advisory lock of the open file without waiting: ``Errno/wouldBlock`` when
    /// another open file holds it. The kernel drops it when the last descriptor of the file closes.
    ///
    /// The corresponding C function is `flock` with `LOCK_EX | LOCK_NB`.
    public func lockExclusivelyWithoutWaiting() throws(Errno) {
        _ = try SystemCall.retryingOnInterrupt { flock(rawValue, LOCK_EX | LOCK_NB) }
    }

    /// Whether it is a terminal. The corresponding C function is `isatty`.
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    /// The width of the terminal it is, or nil when it is none. The corresponding C function is
    /// `ioctl` with `TIOCGWINSZ`.
    public var terminalColumns: Int? {
        var size = winsize()
        guard ioctl(rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
