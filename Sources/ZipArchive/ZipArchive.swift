/// A zip archive read entirely from memory, never extracted to disk.
///
/// Opening checks the whole central directory: the entry count, that every name is a safe
/// relative path, and that no name appears twice. Directory entries are ignored. Reading an
/// entry checks its declared size against a limit first, then that exactly that many bytes come
/// out, so a zip bomb is stopped after one byte too many.
///
/// Not `Sendable`: libzip archives are not thread safe. Use ``readAll(bytes:entryLimit:totalLimit:)``
/// to get plain `Sendable` bytes.
public struct ZipArchive {
    /// The default cap on one entry's size: 16 MiB.
    public static let defaultEntryLimit = 16 << 20
    /// The default cap on all entries together: 64 MiB.
    public static let defaultTotalLimit = 64 << 20
    /// The most entries an archive may list.
    public static let maximumEntryCount = 1000

    private let handle: ZipHandle
    private let entries: [Entry]
    private let indexByName: [String: Int]

    private struct Entry {
        let index: Int
        let name: String
        let size: UInt64
    }

    /// Opens the zip archive in `bytes`, keeping a private copy of them.
    ///
    /// Throws `.notAZip` for empty or non-zip bytes, `.truncated`/`.damaged` for broken archives,
    /// `.tooManyEntries`, `.unsafePath` and `.duplicateName`.
    public init(bytes: [UInt8]) throws(ZipError) {
        do {
            try self.init(handle: ZipHandle(bytes: bytes))
        } catch let error where error.kind == .duplicateName(name: "") {
            // libzip found a duplicate but does not name it: look again without its checks.
            try self.init(handle: ZipHandle(bytes: bytes, checkConsistency: false))
            throw error
        }
    }

    private init(handle: ZipHandle) throws(ZipError) {
        let count = handle.entryCount
        guard count <= Self.maximumEntryCount else {
            throw ZipError(
                .tooManyEntries(count: count, limit: Self.maximumEntryCount),
                message: "the zip archive has \(count) entries, more than the \(Self.maximumEntryCount) allowed")
        }
        var entries: [Entry] = []
        var indexByName: [String: Int] = [:]
        for index in 0..<count {
            let (name, size) = try handle.stat(at: index)
            try Self.checkSafe(name)
            if name.hasSuffix("/") { continue }  // a directory
            guard indexByName[name] == nil else {
                throw ZipError(.duplicateName(name: name), message: "\(name): the name appears twice in the zip archive")
            }
            indexByName[name] = entries.count
            entries.append(Entry(index: index, name: name, size: size))
        }
        self.handle = handle
        self.entries = entries
        self.indexByName = indexByName
    }

    /// The names of the file entries, in archive order (directories left out).
    public var entryNames: [String] { entries.map(\.name) }

    /// The declared (uncompressed) size of the entry `name`, or nil if there is none.
    public func declaredSize(of name: String) -> UInt64? {
        indexByName[name].map { entries[$0].size }
    }

    /// Reads the entry `name`, refusing one that declares more than `limit` bytes or whose data
    /// does not have its declared size.
    public func read(_ name: String, limit: Int = ZipArchive.defaultEntryLimit) throws(ZipError) -> [UInt8] {
        guard let position = indexByName[name] else {
            throw ZipError(.noSuchEntry(name: name), message: "\(name): no such entry in the zip archive")
        }
        let entry = entries[position]
        guard entry.size <= UInt64(max(limit, 0)) else {
            throw ZipError(
                .entryTooLarge(name: name, size: entry.size, limit: limit),
                message: "\(name): the entry declares \(entry.size) bytes, more than the \(limit) allowed")
        }
        return try handle.read(at: entry.index, name: name, declared: entry.size)
    }

    /// Opens `bytes` and reads every file entry, with per-entry and total caps.
    ///
    /// The total is checked on the declared sizes before anything is decompressed.
    public static func readAll(
        bytes: [UInt8], entryLimit: Int = defaultEntryLimit, totalLimit: Int = defaultTotalLimit
    ) throws(ZipError) -> [String: [UInt8]] {
        let archive = try ZipArchive(bytes: bytes)
        var total: UInt64 = 0
        for entry in archive.entries {
            guard entry.size <= UInt64(max(entryLimit, 0)) else {
                throw ZipError(
                    .entryTooLarge(name: entry.name, size: entry.size, limit: entryLimit),
                    message: "\(entry.name): the entry declares \(entry.size) bytes, more than the \(entryLimit) allowed")
            }
            // Each size is at most the entry limit (an Int), so the sum of 1000 of them cannot overflow.
            total += entry.size
            guard total <= UInt64(max(totalLimit, 0)) else {
                throw ZipError(
                    .totalTooLarge(size: total, limit: totalLimit),
                    message: "the zip entries declare more than \(totalLimit) bytes in total")
            }
        }
        var result: [String: [UInt8]] = [:]
        for name in archive.entryNames {
            result[name] = try archive.read(name, limit: entryLimit)
        }
        return result
    }

    /// Refuses names that are not plain relative paths.
    private static func checkSafe(_ name: String) throws(ZipError) {
        let reason: String? =
            if name.isEmpty { "the name is empty" }
            else if name.utf8.contains(0) { "the name contains a NUL byte" }
            else if name.contains("\\") { "the name contains a backslash" }
            else if name.hasPrefix("/") { "the path is absolute" }
            else if name.split(separator: "/", omittingEmptySubsequences: false).contains("..") {
                "the path has a '..' component"
            } else { nil }
        if let reason {
            throw ZipError(.unsafePath(name: name), message: "\(name.debugDescription): unsafe entry name in the zip archive (\(reason))")
        }
    }
}
