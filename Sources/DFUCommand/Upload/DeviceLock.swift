import DFUCore
import Synchronization
import SystemSupport

/// An advisory lock on one device, held while `dfu` talks to it so that two `dfu` processes never
/// write to the same device: a lock file per device address (and system bus) in a lock folder private
/// to the user (``folder(environment:)``), locked with `flock`. The kernel drops the lock when the
/// process ends, however it ends; ``release()`` also removes the file.
///
/// Nothing in the folder is trusted: the folder must be a real folder owned by this user and writable
/// by no one else, and the lock file a regular file of this user's with no other link, else the lock is
/// refused (``Failure/unsafe(path:reason:)``, exit 78) rather than followed or skipped.
final class DeviceLock: Sendable {
    private let fd: FileDescriptor
    private let folderFD: FileDescriptor
    private let name: String

    private init(fd: FileDescriptor, folderFD: FileDescriptor, name: String) {
        self.fd = fd
        self.folderFD = folderFD
        self.name = name
    }

    /// Why a lock could not be taken.
    enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another process holds it; its pid when it wrote one.
        case busy(pid: Int32?)
        /// The lock folder or file is not safe to use (another user's, writable by others, a link…).
        case unsafe(path: String, reason: String)

        var description: String {
            switch self {
            case .busy(let pid):
                let holder = pid.map { "another dfu process (pid \($0))" } ?? "another dfu process"
                return "busy: \(holder) is updating this device; nothing was sent, try again when it has finished"
            case .unsafe(let path, let reason):
                return "\(path): \(reason); refused, nothing was sent (DFU_LOCK_DIR may name a folder only this user can write)"
            }
        }
    }

    /// The folder lock files go in: `DFU_LOCK_DIR` when set, else `/run/dfu` for root, else
    /// `$XDG_RUNTIME_DIR/dfu`, else `/tmp/dfu-UID`.
    static func folder(environment: [String: String]) -> String {
        if let folder = environment["DFU_LOCK_DIR"], !folder.isEmpty { return folder }
        if CurrentProcess.effectiveUserID == 0 { return "/run/dfu" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/dfu" }
        return "/tmp/dfu-\(CurrentProcess.effectiveUserID)"
    }

    /// The lock file's name for `address` on the bus `environment` names: `dfu-C0_FF_EE_00_00_10.lock`.
    static func fileName(_ address: DFUDeviceAddress, environment: [String: String]) -> String {
        let key = address.description.uppercased().replacingColons()
        // Devices on another bus (dfu-sim's private ones) are other devices.
        let bus = environment["DBUS_SYSTEM_BUS_ADDRESS"].map { "-" + fnv1a($0) } ?? ""
        return "dfu-" + key + bus + ".lock"
    }

    /// Takes the lock of the device at `address` without waiting.
    ///
    /// The system calls are `mkdir`, `open`, `openat`, `fstat`, `flock`, `fstatat`, `ftruncate` and `pwrite`
    /// (through ``FileDescriptor`` and ``FileSystem``).
    static func take(_ address: DFUDeviceAddress, environment: [String: String]) throws(Failure) -> DeviceLock {
        let folder = folder(environment: environment)
        let folderFD = try openFolder(folder)
        let name = fileName(address, environment: environment)
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        do throws(Failure) {
            // A process that held the file and removed it just after this one opened it: open the new one once more.
            for _ in 0..<2 {
                if let fd = try lockFile(name, path: path, in: folderFD) {
                    // The holder's pid, for the busy message of another process; the lock works without it.
                    let pid = Array("\(CurrentProcess.id)\n".utf8)
                    try? fd.truncate(to: 0)
                    _ = try? pid.withUnsafeBytes { buffer throws(Errno) in try fd.write(buffer, at: 0) }
                    return DeviceLock(fd: fd, folderFD: folderFD, name: name)
                }
            }
            throw .busy(pid: nil)
        } catch {
            try? folderFD.close()
            throw error
        }
    }

    /// Opens the lock folder (creating it, 0700, when absent) and checks it is this user's own.
    private static func openFolder(_ path: String) throws(Failure) -> FileDescriptor {
        do throws(Errno) {
            try FileSystem.makeDirectory(path, permissions: 0o700)
        } catch where error != .fileExists {
            throw .unsafe(path: path, reason: "the lock folder cannot be created: \(error)")
        } catch {}
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try FileDescriptor.open(path, .readOnly, options: [.directory, .noFollow, .closeOnExec])
        } catch {
            let reason = switch error {
            case .tooManySymbolicLinks: "the lock folder is a symbolic link"
            case .notDirectory: "the lock folder is not a folder"
            default: "the lock folder cannot be opened: \(error)"
            }
            throw .unsafe(path: path, reason: reason)
        }
        let reason: String?
        do throws(Errno) {
            let status = try fd.status()
            let user = CurrentProcess.effectiveUserID
            reason =
                if status.kind != .directory { "the lock folder is not a folder" }
                else if status.owner != user { "the lock folder belongs to user \(status.owner), not to this user (\(user))" }
                else if status.isWritableByOthers {
                    "the lock folder is writable by other users (mode " + String(status.permissions, radix: 8) + ")"
                } else { nil }
        } catch {
            reason = "the lock folder cannot be read: \(error)"
        }
        if let reason {
            try? fd.close()
            throw .unsafe(path: path, reason: reason)
        }
        return fd
    }

    /// Opens, checks and locks the file `name` in the folder; nil when the name no longer refers to the
    /// file locked (removed or replaced by its last holder meanwhile).
    private static func lockFile(_ name: String, path: String, in folder: FileDescriptor) throws(Failure) -> FileDescriptor? {
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try FileDescriptor.open(
                name, .readWrite, options: [.create, .noFollow, .nonBlocking, .closeOnExec], permissions: 0o600, in: folder)
        } catch {
            let reason = switch error {
            case .tooManySymbolicLinks: "the lock file is a symbolic link"
            case .isDirectory: "the lock file is a folder"
            default: "the lock file cannot be opened: \(error)"
            }
            throw .unsafe(path: path, reason: reason)
        }
        let status: FileStatus
        do throws(Errno) {
            status = try fd.status()
        } catch {
            try? fd.close()
            throw .unsafe(path: path, reason: "the lock file cannot be read: \(error)")
        }
        if let reason = unsafeLockFileReason(status) {
            try? fd.close()
            throw .unsafe(path: path, reason: reason)
        }
        do throws(Errno) {
            try fd.lockExclusivelyWithoutWaiting()
        } catch {
            defer { try? fd.close() }
            guard error == .wouldBlock else {
                throw .unsafe(path: path, reason: "the lock file cannot be locked: \(error)")
            }
            throw .busy(pid: holderPID(fd))
        }
        guard let named = try? folder.status(ofEntry: name), named.isSameFile(as: status) else {
            try? fd.close()
            return nil
        }
        return fd
    }

    /// Why a lock file opened is not safe to lock, or nil.
    private static func unsafeLockFileReason(_ status: FileStatus) -> String? {
        let user = CurrentProcess.effectiveUserID
        if status.kind != .regular { return "the lock file is not a regular file" }
        if status.owner != user { return "the lock file belongs to user \(status.owner), not to this user (\(user))" }
        if status.linkCount != 1 { return "the lock file has \(status.linkCount) links (a hard link to another file)" }
        return nil
    }

    /// The pid its holder wrote in the lock file, if readable.
    private static func holderPID(_ fd: FileDescriptor) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = (try? buffer.withUnsafeMutableBytes { bytes throws(Errno) in try fd.read(into: bytes, at: 0) }) ?? 0
        let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        return Int32(String(text.filter(\.isNumber)))
    }

    /// A short stable digest of `text` (64-bit FNV-1a, hex).
    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }

    /// Releases the lock: removes the file while still holding it (a process that opened it meanwhile
    /// sees the name gone and opens a new one), then unlocks.
    func release() {
        try? folderFD.removeEntry(named: name)
        try? fd.close()
        try? folderFD.close()
    }
}

extension String {
    /// `C0:FF:EE:00:00:10` as `C0_FF_EE_00_00_10`, for a file name.
    fileprivate func replacingColons() -> String {
        String(map { $0 == ":" ? "_" : $0 })
    }
}

/// The locks one device's run holds: the address it was named by or resolved to, and any other address
/// the engine connects to (the DFU bootloader at the address + 1 after a jump). Released together.
final class DeviceLocks: Sendable {
    private let environment: [String: String]
    private let state = Mutex<(held: [DFUDeviceAddress: DeviceLock], failure: (DFUDeviceAddress, DeviceLock.Failure)?)>(([:], nil))

    init(environment: [String: String]) { self.environment = environment }

    /// The first lock that could not be taken, if any, and the address it is for.
    var failure: (address: DFUDeviceAddress, failure: DeviceLock.Failure)? {
        state.withLock { $0.failure.map { (address: $0.0, failure: $0.1) } }
    }

    /// Takes the lock of `address` unless already held.
    func claim(_ address: DFUDeviceAddress) throws(DeviceLock.Failure) {
        let result: Result<Void, DeviceLock.Failure> = state.withLock { state in
            if state.held[address] != nil { return .success(()) }
            do throws(DeviceLock.Failure) {
                state.held[address] = try DeviceLock.take(address, environment: environment)
                return .success(())
            } catch {
                state.failure = state.failure ?? (address, error)
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Releases every lock held.
    func releaseAll() {
        let locks = state.withLock { state in
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for lock in locks { lock.release() }
    }
}

/// A ``DFUTransport`` that takes the lock of every device it connects to before anything is written:
/// the addresses asked for before connecting, and the one connected to (a name's device, a bootloader
/// at a fallback address) once known. A lock that cannot be taken ends the run as interrupted; the
/// caller reports ``DeviceLocks/failure``.
struct LockingTransport: DFUTransportDecorator {
    let base: any DFUTransport
    let locks: DeviceLocks

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        do throws(DeviceLock.Failure) {
            for address in parameters.selector.addresses { try locks.claim(address) }
        } catch {
            throw .interrupted
        }
        let peer = try await base.connect(parameters)
        do throws(DeviceLock.Failure) {
            try locks.claim(peer.address)
        } catch {
            await base.disconnect()
            throw .interrupted
        }
        return peer
    }
}
