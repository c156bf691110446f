#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileDescriptor {
    /// The flags of `send` and `recv`.
    public struct MessageOptions: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// `MSG_DONTWAIT`: ``Errno/wouldBlock`` instead of waiting.
        public static let dontWait = MessageOptions(rawValue: Int32(MSG_DONTWAIT))
        /// `MSG_NOSIGNAL`: ``Errno/brokenPipe`` instead of `SIGPIPE` when the peer is gone.
        public static let noSignal = MessageOptions(rawValue: Int32(MSG_NOSIGNAL))
    }

    /// Sends one packet (or part of a stream) and says how many bytes went.
    ///
    /// The corresponding C function is `send`.
    public func send(_ buffer: UnsafeRawBufferPointer, options: MessageOptions = []) throws(Errno) -> Int {
        try SystemCall.retryingOnInterrupt { Glibc.send(rawValue, buffer.baseAddress, buffer.count, options.rawValue) }
    }

    /// Receives one packet (cut to `buffer.count`) or part of a stream; 0 when the peer closed.
    ///
    /// The corresponding C function is `recv`.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, options: MessageOptions = []) throws(Errno) -> Int {
        try SystemCall.retryingOnInterrupt { recv(rawValue, buffer.baseAddress, buffer.count, options.rawValue) }
    }

    /// The bytes written to the socket that the peer has not taken yet.
    ///
    /// The corresponding C function is `ioctl` with `TIOCOUTQ`.
    public func queuedOutputByteCount() throws(Errno) -> Int {
        var amount: Int32 = 0
        _ = try SystemCall.once { ioctl(rawValue, UInt(TIOCOUTQ), &amount) }
        return Int(amount)
    }
}

extension FileDescriptor {
    /// Two connected local sockets of one kind, closed on exec.
    public enum SocketKind: Sendable {
        /// `SOCK_SEQPACKET`: packets kept whole and in order (what bluetoothd's AcquireWrite and
        /// AcquireNotify hand out).
        case sequencedPacket
        /// `SOCK_STREAM`.
        case stream

        var rawValue: Int32 {
            switch self {
            case .sequencedPacket: Int32(SOCK_SEQPACKET.rawValue)
            case .stream: Int32(SOCK_STREAM.rawValue)
            }
        }
    }

    /// A connected pair of `AF_UNIX` sockets. The corresponding C function is `socketpair`.
    public static func socketPair(_ kind: SocketKind) throws(Errno) -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try SystemCall.once { socketpair(AF_UNIX, kind.rawValue | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Makes reads and writes of this open file return ``Errno/wouldBlock`` instead of waiting
    /// (shared by every descriptor of the open file). The corresponding C function is `fcntl` with `F_SETFL`.
    public func setNonBlocking() throws(Errno) {
        let flags = try SystemCall.once { fcntl(rawValue, F_GETFL) }
        _ = try SystemCall.once { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Shuts both directions of the socket: the peer reads the end, a thread waiting on it wakes.
    /// The corresponding C function is `shutdown` with `SHUT_RDWR`.
    public func shutDown() throws(Errno) {
        _ = try SystemCall.once { shutdown(rawValue, Int32(SHUT_RDWR)) }
    }

    /// What `poll` says of the descriptor.
    public struct PollEvents: OptionSet, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        /// `POLLIN`: data to read.
        public static let readable = PollEvents(rawValue: Int16(POLLIN))
        /// `POLLHUP`: hung up.
        public static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
        /// `POLLERR`: an error.
        public static let error = PollEvents(rawValue: Int16(POLLERR))
    }

    /// Waits until the descriptor is ready for `events` (hang-ups and errors are always reported), or
    /// `timeout` passes (nil: no limit; zero: only looks); empty when the time passed. The
    /// corresponding C function is `poll`, called again after `EINTR` (with the whole timeout).
    public func poll(for events: PollEvents, timeout: Duration?) throws(Errno) -> PollEvents {
        let milliseconds = timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? -1
        var entry = pollfd(fd: rawValue, events: events.rawValue, revents: 0)
        let ready = try SystemCall.retryingOnInterrupt { Glibc.poll(&entry, 1, milliseconds) }
        return ready > 0 ? PollEvents(rawValue: entry.revents) : []
    }
}

extension FileDescriptor {
    /// A pipe: what is written to the second end is read from the first. Both close on exec, set right
    /// after `pipe` (Glibc's Swift module has no `pipe2`): a caller that spawns from several threads must
    /// keep others from spawning in between. The corresponding C functions are `pipe` and `fcntl`.
    public static func pipe() throws(Errno) -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try SystemCall.once { Glibc.pipe(&ends) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }
}
