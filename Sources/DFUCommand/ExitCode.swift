/// The exit status of `dfu`, one value per outcome a script can branch on.
///
/// The numbers follow sysexits(3) where one fits and are documented in docs/cli.md, the README and `--help`.
public struct ExitCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The process exit status.
    public let rawValue: Int32

    /// Makes an exit code from a process exit status.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Everything asked for was done.
    public static let success = ExitCode(rawValue: 0)
    /// The device rejected the update (the remote and extended error are named).
    public static let deviceRejected = ExitCode(rawValue: 1)
    /// The device was not found, or it stopped answering within its timeouts.
    public static let deviceNotFound = ExitCode(rawValue: 2)
    /// The command line was wrong (`EX_USAGE`).
    public static let usage = ExitCode(rawValue: 64)
    /// The package or firmware file is unusable (`EX_DATAERR`), including hash and signature failures.
    public static let badPackage = ExitCode(rawValue: 65)
    /// A file named on the command line could not be read (`EX_NOINPUT`).
    public static let noInput = ExitCode(rawValue: 66)
    /// An output file named on the command line could not be created or written (`EX_CANTCREAT`): `pkg generate`'s
    /// package, the files of `keys generate` and `keys display --out_file`.
    public static let cannotCreate = ExitCode(rawValue: 73)
    /// BlueZ, the D-Bus system bus or the adapter is unavailable (`EX_UNAVAILABLE`).
    public static let unavailable = ExitCode(rawValue: 69)
    /// Standard output could not be written, e.g. a full disk (`EX_IOERR`).
    public static let outputFailed = ExitCode(rawValue: 74)
    /// The device is being updated by another `dfu` process (`EX_TEMPFAIL`: try again later).
    public static let busy = ExitCode(rawValue: 75)
    /// A setting `dfu` will not use because it is unsafe (`EX_CONFIG`): a lock folder or lock file another
    /// user owns or can write, or that is a link; a `DBUS_SYSTEM_BUS_ADDRESS` that is not a `unix:` address.
    public static let unsafeSetup = ExitCode(rawValue: 78)
    /// An internal error: a bug in `dfu` (`EX_SOFTWARE`).
    public static let software = ExitCode(rawValue: 70)
    /// The system refused what `dfu` needs to run at all: the descriptors of its event loop, its handler of Ctrl-C
    /// (`EX_OSERR`).
    public static let systemError = ExitCode(rawValue: 71)
    /// Interrupted by Ctrl-C or SIGTERM.
    public static let interrupted = ExitCode(rawValue: 130)

    /// The number, for messages.
    public var description: String { String(rawValue) }
}
