#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says of a file: its kind, owner, permissions, links and identity.
public struct FileStatus: Sendable, Equatable {
    /// The kinds of file the project tells apart.
    public enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, other
    }

    public let kind: Kind
    /// The owner's user id.
    public let owner: UInt32
    /// The permission bits (mode & 0o7777).
    public let permissions: UInt32
    /// How many names the file has.
    public let linkCount: UInt64
    /// The size in bytes.
    public let size: Int
    /// The device and inode numbers: equal for two names of the same file.
    public let device: UInt64
    public let inode: UInt64

    init(_ status: stat) {
        kind = switch status.st_mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        default: .other
        }
        owner = status.st_uid
        permissions = UInt32(status.st_mode & 0o7777)
        linkCount = UInt64(status.st_nlink)
        size = Int(status.st_size)
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// Whether users other than the owner (group or others) may write it.
    public var isWritableByOthers: Bool { permissions & UInt32(S_IWGRP | S_IWOTH) != 0 }

    /// Whether `other` is the same file (device and inode).
    public func isSameFile(as other: FileStatus) -> Bool { device == other.device && inode == other.inode }
}
