#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An advisory lock on one device, held for the whole update so that two `dfu` processes never
/// write to the same device: a lock file per device and system bus in the lock folder
/// (`DFU_LOCK_DIR`, else `/run/lock`, else `/tmp`), locked with `flock`. The kernel drops it when
/// the process ends, however it ends.
final class DeviceLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Why a lock could not be taken.
    enum Failure: Error {
        /// Another process holds it; its pid when it wrote one.
        case busy(pid: Int32?)
    }

    /// The folder lock files go in.
    static func folder(environment: [String: String]) -> String {
        if let folder = environment["DFU_LOCK_DIR"], !folder.isEmpty { return folder }
        return access("/run/lock", W_OK) == 0 ? "/run/lock" : "/tmp"
    }

    /// Takes the lock of `device` (an address or a name) without waiting. A lock file that cannot
    /// be created (a read-only folder) gives no lock rather than no update.
    ///
    /// The corresponding C functions are `open`, `flock`, `ftruncate` and `write`.
    static func take(_ device: String, environment: [String: String]) throws(Failure) -> DeviceLock? {
        let key = device.unicodeScalars.map { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) ? String(scalar).uppercased() : "_"
        }.joined()
        // Devices on another bus (dfu-sim's private ones) are other devices.
        let bus = environment["DBUS_SYSTEM_BUS_ADDRESS"].map { "-" + fnv1a($0) } ?? ""
        let path = folder(environment: environment) + "/dfu-" + key + bus + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return nil }
        // Others may take it over once we are gone, whoever created the file.
        fchmod(fd, 0o666)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            close(fd)
            let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
            throw .busy(pid: Int32(String(text.filter(\.isNumber))))
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return DeviceLock(fd: fd)
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

    /// Releases the lock.
    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
