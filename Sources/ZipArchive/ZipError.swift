/// Why a zip archive, or one entry of it, could not be read.
///
/// `kind` carries the data a caller may act on; `message` is one line for a person, with
/// libzip's own words copied at the moment of failure when libzip was the one to fail.
public struct ZipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, with the entry and the numbers involved.
    public enum Kind: Sendable, Equatable {
        /// The bytes are empty or are not a zip archive at all.
        case notAZip
        /// The bytes start like a zip archive but its end (the central directory) is missing.
        case truncated
        /// The archive is inconsistent (central directory and local headers disagree, bad offsets…).
        case damaged
        /// The archive lists more entries than allowed.
        case tooManyEntries(count: Int, limit: Int)
        /// An entry name could escape a target folder or is not a plain relative path
        /// (absolute, a `..` component, a backslash, a NUL, or empty).
        case unsafePath(name: String)
        /// Two entries have the same name.
        case duplicateName(name: String)
        /// No entry has this name.
        case noSuchEntry(name: String)
        /// An entry declares more bytes than the per-entry limit.
        case entryTooLarge(name: String, size: UInt64, limit: Int)
        /// The entries together declare more bytes than the total limit.
        case totalTooLarge(size: UInt64, limit: Int)
        /// An entry produced a different number of bytes than its header declares
        /// (a zip bomb, or a damaged entry).
        case sizeMismatch(name: String, declared: UInt64, actual: UInt64)
        /// An entry could not be read (encrypted, unsupported compression, bad CRC…).
        case unreadableEntry(name: String)
    }

    /// What went wrong.
    public let kind: Kind
    /// One line saying what went wrong; includes libzip's message when libzip reported it.
    public let message: String

    /// Makes an error; `message` should be a single line.
    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
