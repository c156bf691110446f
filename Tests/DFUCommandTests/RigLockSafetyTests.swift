import DFUCommand
import DFUSimulator
import Foundation
import TestSupport
import Testing

/// Issue 28 points 3–7: the per-device lock on a shared rig host. Nothing in the lock folder is followed
/// or trusted (a planted link, another user's folder or file, a folder at the lock path: exit 78, nothing
/// sent, never an update without a lock); locks are keyed by the device's address, whatever it was named
/// by, and cover the bootloader at address + 1; lock files are removed; a `DBUS_SYSTEM_BUS_ADDRESS` that
/// is not `unix:` is refused before libdbus could run a program.
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(2))))
struct RigLockSafetyTests {
    static let device = SimulatedRig.firstAddress
    /// The lock file of ``device`` (no `DBUS_SYSTEM_BUS_ADDRESS` in the environment given).
    static let lockName = "dfu-C0_FF_EE_00_00_01.lock"
    static let unsafeSetup: Int32 = 78

    /// A fresh folder for locks (mode 0700, this user's), removed afterwards by the caller.
    static func lockFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-rig-locks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return folder
    }

    static func upload(_ rig: SimulatedRig, device: String = device, folder: URL) async -> RecordedRun {
        await rig.dfu(["upload", UploadCommandTests.app, "--device", device], environment: ["DFU_LOCK_DIR": folder.path],
                      locksDevices: true)
    }

    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    // MARK: Point 3: a planted link is never followed

    @Test func aLinkPlantedAtTheLockPathIsRefusedAndItsTargetKeepsItsModeAndContents() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("secret")
        try Data("do not touch\n".utf8).write(to: target)
        chmod(target.path, 0o600)
        let link = folder.appendingPathComponent(Self.lockName)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code.rawValue == Self.unsafeSetup, "\(run.error)")
        #expect(run.error.contains(link.path) && run.error.contains("symbolic link"), "\(run.error)")
        #expect(Self.mode(target.path) == 0o600)
        #expect(try String(contentsOf: target, encoding: .utf8) == "do not touch\n")
        #expect(rig.packetBytes() == 0, "nothing sent")
    }

    // MARK: Point 4: other users' folders and files, and a folder at the lock path

    @Test(.enabled(if: getuid() == 0))
    func aLockFileAnotherUserCreatedIsRefused() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(Self.lockName)
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data(), attributes: [.posixPermissions: 0o666]))
        #expect(chown(file.path, 65534, 65534) == 0)  // nobody
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code.rawValue == Self.unsafeSetup, "\(run.error)")
        #expect(run.error.contains(file.path) && run.error.contains("belongs to user 65534"), "\(run.error)")
        #expect(rig.packetBytes() == 0, "nothing sent")
    }

    @Test(.enabled(if: getuid() == 0))
    func aLockFolderAnotherUserOwnsIsRefused() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(chown(folder.path, 65534, 65534) == 0)  // nobody
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code.rawValue == Self.unsafeSetup, "\(run.error)")
        #expect(run.error.contains("\(folder.path): the lock folder belongs to user 65534"), "\(run.error)")
        #expect(rig.packetBytes() == 0, "nothing sent")
    }

    @Test func aLockFolderOthersCanWriteIsRefused() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        chmod(folder.path, 0o1777)
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code.rawValue == Self.unsafeSetup, "\(run.error)")
        #expect(run.error.contains("writable by other users"), "\(run.error)")
        #expect(rig.packetBytes() == 0, "nothing sent")
    }

    @Test func aFolderAtTheLockPathIsRefusedNotAnUpdateWithoutALock() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(Self.lockName), withIntermediateDirectories: false)
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code.rawValue == Self.unsafeSetup, "\(run.error)")
        #expect(rig.packetBytes() == 0, "nothing sent")
    }

    @Test func aHardLinkAtTheLockPathIsRefused() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = folder.appendingPathComponent("other")
        try Data("keep\n".utf8).write(to: other)
        #expect(link(other.path, folder.appendingPathComponent(Self.lockName).path) == 0)
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code.rawValue == Self.unsafeSetup, "\(run.error)")
        #expect(try String(contentsOf: other, encoding: .utf8) == "keep\n")
    }

    // MARK: Point 5: one lock per device, however it was named

    /// Holds the lock file `name` in `folder` as another dfu would, until `body` returns.
    static func holding<T>(_ name: String, in folder: URL, _ body: () async throws -> T) async rethrows -> T {
        let fd = open(folder.appendingPathComponent(name).path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(fd) }
        // Locked by this test, or already by another test run on this host (the same shared name): either way
        // a lock is held there while root's upload runs.
        #expect(fd >= 0 && (flock(fd, LOCK_EX | LOCK_NB) == 0 || errno == EWOULDBLOCK))
        _ = "4242\n".withCString { write(fd, $0, 5) }
        return try await body()
    }

    @Test func aDeviceNamedByItsNameIsBusyWhileItsAddressIsLocked() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rig = SimulatedRig(["Nordic_App": SimulatedRig.secureDevice()])
        let run = await Self.holding(Self.lockName, in: folder) {
            await Self.upload(rig, device: "Nordic_App", folder: folder)
        }
        #expect(run.code == .busy, "\(run.error)")
        #expect(run.error.contains("busy: another dfu process (pid 4242)"), "\(run.error)")
        #expect(rig.packetBytes("Nordic_App") == 0, "nothing sent")
    }

    @Test func theBootloaderAtTheAddressPlusOneIsLockedBeforeAnythingIsSentToIt() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.holding("dfu-C0_FF_EE_00_00_02.lock", in: folder) {
            await Self.upload(rig, folder: folder)
        }
        #expect(run.code == .busy, "\(run.error)")
        #expect(run.error.contains("busy: another dfu process (pid 4242) is updating C0:FF:EE:00:00:02"), "\(run.error)")
        #expect(rig.packetBytes() == 0, "no firmware sent to the bootloader another dfu holds")
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.fileExists(atPath: "/run/lock")))
    func aLockInTheSharedRunLockFolderNoLongerStopsRootsUpload() async throws {
        // Any user may create and flock files in /run/lock (mode 1777); root's locks are in /run/dfu now.
        let shared = "/run/lock/" + Self.lockName
        let fd = open(shared, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        defer {
            close(fd)
            unlink(shared)
        }
        // Locked by this test, or already by another test run on this host (the same shared name): either way
        // a lock is held there while root's upload runs.
        #expect(fd >= 0 && (flock(fd, LOCK_EX | LOCK_NB) == 0 || errno == EWOULDBLOCK))
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", UploadCommandTests.app, "--device", Self.device], locksDevices: true)
        #expect(run.code == .success, "\(run.error)")
        var status = stat()
        #expect(stat("/run/dfu", &status) == 0 && status.st_uid == 0 && status.st_mode & 0o077 == 0, "root's own folder")
    }

    // MARK: Point 6: lock files are removed

    @Test func theLockFilesAreRemovedAfterASuccessfulUpload() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code == .success, "\(run.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }

    @Test func theLockFolderIsCreatedPrivate() async throws {
        let parent = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("locks")
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig, folder: folder)
        #expect(run.code == .success, "\(run.error)")
        #expect(Self.mode(folder.path).map { $0 & 0o077 } == 0, "no access for group and others")
    }

    @Test(.enabled(if: DFUSimRun.available))
    func smpCommandsToADeviceAnUploadHoldsAreBusyAndEveryLockFileIsRemovedThroughBluetoothdsStandIn() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dfu = TestData.dfuExecutable.path
        let address = "C0:FF:EE:00:00:10"
        // The upload holds the device while its connection takes 5 s; reset and images come once it holds the lock:
        // the kernel lists the upload's flock in /proc/locks (a fixed "sleep 1" was too short for a loaded
        // machine's start-up under ASan, and reset ran first). At most 30 s, then reset runs anyway and fails the test.
        let script = """
            export DFU_LOCK_DIR="$2"
            "$0" upload "$1" -d \(address) --no-reset -q & upload=$!
            tries=0
            until grep -q " FLOCK .* WRITE $upload " /proc/locks || [ $tries -ge 600 ]; do sleep 0.05; tries=$((tries + 1)); done
            "$0" reset -d \(address); echo reset=$?
            "$0" images -d \(address) >/dev/null; echo images=$?
            wait $upload; echo upload=$?
            "$0" images -d \(address) >/dev/null; echo later=$?
            ls -A "$2" | wc -l | sed 's/^ */left=/'
            """
        let run = try await DFUSimRun.run(devices: ["smp,connect_delay_ms=5000"],
                                          command: ["/bin/sh", "-c", script, dfu, SMPFirmware.image, folder.path])
        #expect(run.output.contains("reset=75"), "\(run.output) \(run.error)")
        #expect(run.output.contains("images=75"), "\(run.output) \(run.error)")
        #expect(run.output.contains("upload=0"), "\(run.output) \(run.error)")
        #expect(run.output.contains("later=0"), "\(run.output) \(run.error)")
        #expect(run.output.contains("left=0"), "no lock file left behind: \(run.output)")
    }

    // MARK: Point 7: only unix: system bus addresses

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: TestData.dfuExecutable.path)))
    func aUnixexecSystemBusAddressIsRefusedAndItsProgramNeverRuns() async throws {
        let folder = try Self.lockFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let marker = folder.appendingPathComponent("ran")
        for command in [["images", "-d", "C0:FF:EE:00:00:10"], ["scan", "-t", "0.2"]] {
            let process = Process()
            process.executableURL = TestData.dfuExecutable
            process.arguments = command
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unixexec:path=/bin/sh,argv0=sh,argv1=-c,argv2=touch%20\(marker.path)"
            environment["DFU_LOCK_DIR"] = folder.path
            process.environment = environment
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let status = try await ToolRun.exitStatus(of: process, timeout: .seconds(30))
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(status == Self.unsafeSetup, "\(command): \(text)")
            #expect(text.contains("DBUS_SYSTEM_BUS_ADDRESS") && text.contains("runs a program"), "\(text)")
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the program was not run")
        }
    }
}
