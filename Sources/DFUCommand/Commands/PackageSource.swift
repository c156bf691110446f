import SystemSupport
import DFUCore
import DFUCrypto
import ZipArchive
import DFUFormats

/// Where the firmware comes from, as named on the command line: a DFU package (`.zip`), or a raw
/// `.bin`/`.hex` image with an optional `.dat` and an explicit part type.
struct PackageSource: Sendable {
    /// The package or image path.
    let path: String
    /// For raw images: what the image is.
    let rawKind: PartKind?
    /// For raw images: the init packet path.
    let initPath: String?
    /// Whether the path names a raw `.bin`/`.hex` image rather than a zip.
    private let isRaw: Bool
    /// Whether the path names a `.bin`/`.hex` file (an nRF5 raw image or an MCUboot image).
    var isRawImageName: Bool { isRaw }
    /// For raw SoftDevice+bootloader images: the two sizes.
    let softdeviceSize: UInt32?
    let bootloaderSize: UInt32?
    /// A raw image named without --type (an error unless it is an MCUboot image).
    private let missingType: Bool
    /// The command, for usage messages.
    private let command: String

    /// The options every command that reads firmware accepts.
    static let options: [OptionSpec] = [
        .value("init", "FILE.dat", help: "init packet for a raw .bin/.hex image"),
        .value(
            "type", "TYPE",
            help: "part type of a raw image: application, bootloader, softdevice, softdevice_bootloader"),
        .value("sd-size", "BYTES", help: "SoftDevice size inside a raw softdevice_bootloader image"),
        .value("bl-size", "BYTES", help: "bootloader size inside a raw softdevice_bootloader image"),
    ]

    /// Reads the source's options; `path` is the positional argument.
    init(path: String, arguments: ParsedArguments) throws(UsageError) {
        self.path = path
        let lower = path.lowercased()
        isRaw = lower.hasSuffix(".bin") || lower.hasSuffix(".hex")
        initPath = arguments.value("init")
        softdeviceSize = try arguments.integer("sd-size", in: 1...UInt32.max)
        bootloaderSize = try arguments.integer("bl-size", in: 1...UInt32.max)
        if let typeName = arguments.value("type") {
            guard let kind = PartKind(rawValue: typeName) else {
                throw UsageError(
                    "option --type: '\(typeName)' is not one of application, bootloader, softdevice, softdevice_bootloader",
                    command: arguments.command)
            }
            rawKind = kind
        } else {
            rawKind = nil
        }
        // A raw image without --type may be an MCUboot image, which needs none: that is known
        // only once the file is read (``load(context:)``).
        missingType = isRaw && rawKind == nil
        command = arguments.command
        if !isRaw && (rawKind != nil || initPath != nil || softdeviceSize != nil || bootloaderSize != nil) {
            throw UsageError(
                "--type, --init, --sd-size and --bl-size are for raw .bin/.hex images, not packages",
                command: arguments.command)
        }
        if rawKind == .softdeviceBootloader && (softdeviceSize == nil || bootloaderSize == nil) {
            throw UsageError("a softdevice_bootloader image needs --sd-size and --bl-size", command: arguments.command)
        }
    }

    /// What `dfu inspect` shows: an nRF5 package or image, or MCUboot images.
    enum Contents {
        case nrf5(PackageReport)
        case mcuboot(MCUbootPackageReport)
    }

    /// Reads and inspects the firmware of either kind, with the `--key` at `keyPath` read as the
    /// kind of key the firmware needs (ECDSA P-256 for nRF5; ECDSA P-256, Ed25519 or RSA for MCUboot).
    func contents(keyPath: String?, context: CommandContext) throws -> Contents {
        let keyPEM = try keyPath.map { path throws(FileReadError) in try context.readFile(path) }
        func keyError(_ error: ECDSAP256.KeyError) -> UsageError {
            UsageError("option --key: \(keyPath ?? ""): \(error.description)", command: command)
        }
        func mcubootKey() throws(UsageError) -> VerifyingKey? {
            if initPath != nil || softdeviceSize != nil || bootloaderSize != nil {
                throw UsageError("--init, --sd-size and --bl-size are for nRF5 raw images; \(path) is an MCUboot image", command: command)
            }
            guard let keyPEM else { return nil }
            do { return try VerifyingKey(pem: keyPEM) } catch { throw keyError(error) }
        }
        func nrf5Key() throws(UsageError) -> ECDSAP256.PublicKey? {
            guard let keyPEM else { return nil }
            do { return try ECDSAP256.PublicKey(pem: keyPEM) } catch { throw keyError(error) }
        }
        func mcuboot(_ read: () throws(MCUbootError) -> MCUbootPackageReport) throws(BadInputError) -> Contents {
            do { return .mcuboot(try read()) } catch { throw BadInputError(path: path, cause: causeWithoutOwnName(error.description)) }
        }
        switch try load(context: context) {
        case .mcubootFile(let bytes):
            let key = try mcubootKey()
            return try mcuboot { () throws(MCUbootError) in try MCUbootPackageReport.inspect(file: bytes, name: Self.fileName(path), key: key) }
        case .mcubootZip(let entries):
            let key = try mcubootKey()
            return try mcuboot { () throws(MCUbootError) in try MCUbootPackageReport.inspect(entries: entries, key: key) }
        case .nrf5Raw(let bytes):
            return .nrf5(try inspectNRF5(raw: bytes, key: try nrf5Key(), context: context))
        case .nrf5Zip(let entries):
            return .nrf5(try inspectNRF5(entries: entries, key: try nrf5Key()))
        }
    }

    /// The file's bytes, sorted by kind.
    private enum Loaded {
        case mcubootFile([UInt8])
        case mcubootZip([String: [UInt8]])
        case nrf5Raw([UInt8])
        case nrf5Zip([String: [UInt8]])
    }

    /// Reads the file once and tells MCUboot images (by their magic, in a `.bin` or a `.hex`) and
    /// nRF Connect SDK zips (by their manifest's `files` list) from nRF5 images and packages.
    private func load(context: CommandContext) throws -> Loaded {
        let bytes: [UInt8]
        do {
            bytes = try context.readFile(path)
        } catch {
            if missingType { throw UsageError("a raw image (\(path)) needs --type", command: command) }
            throw error
        }
        if isRaw {
            if Self.isMCUbootImage(bytes, name: path) { return .mcubootFile(bytes) }
            if missingType {
                throw UsageError(
                    "a raw image (\(path)) needs --type; it is not an MCUboot image (it does not start with the magic 0x96f3b83d)",
                    command: command)
            }
            return .nrf5Raw(bytes)
        }
        let entries: [String: [UInt8]]
        do {
            entries = try ZipArchive.readAll(bytes: bytes)
        } catch {
            throw BadInputError(path: path, cause: error.description)
        }
        if let manifest = entries["manifest.json"], NCSManifest.isNCSManifest(manifest) { return .mcubootZip(entries) }
        return .nrf5Zip(entries)
    }

    /// Whether a `.bin` starts with MCUboot's image magic, or a `.hex`'s lowest data does.
    private static func isMCUbootImage(_ bytes: [UInt8], name: String) -> Bool {
        guard name.lowercased().hasSuffix(".hex") else { return MCUbootImage.hasMagic(bytes) }
        guard let hex = try? IntelHex(text: bytes, name: name), let first = hex.segments.first else { return false }
        return MCUbootImage.hasMagic(Array(first.bytes.prefix(4)))
    }

    /// A cause without the file's own name in front (the path already gives it).
    func causeWithoutOwnName(_ cause: String) -> String {
        let prefix = Self.fileName(path) + ": "
        return isRaw && cause.hasPrefix(prefix) ? String(cause.dropFirst(prefix.count)) : cause
    }

    private func inspectNRF5(entries: [String: [UInt8]], key: ECDSAP256.PublicKey?) throws -> PackageReport {
        do {
            return try DFUPackage.inspect(entries: entries, key: key)
        } catch {
            throw BadInputError(path: path, cause: error.description)
        }
    }

    private func inspectNRF5(raw bytes: [UInt8], key: ECDSAP256.PublicKey?, context: CommandContext) throws -> PackageReport {
        do {
            if let rawKind {
                let initBytes = try initPath.map { path throws(FileReadError) in try context.readFile(path) }
                let raw = RawImage(
                    kind: rawKind, imageName: Self.fileName(path), imageBytes: bytes,
                    initPacketName: initPath.map(Self.fileName), initPacket: initBytes,
                    softdeviceSize: softdeviceSize, bootloaderSize: bootloaderSize)
                return try DFUPackage.inspect(raw: raw, key: key)
            }
            throw UsageError("a raw image (\(path)) needs --type", command: command)
        } catch let error as PackageError {
            // A raw image's errors start with its own file name, which the path already gives.
            let prefix = Self.fileName(path) + ": "
            let cause = error.description
            throw BadInputError(path: path, cause: rawKind != nil && cause.hasPrefix(prefix) ? String(cause.dropFirst(prefix.count)) : cause)
        }
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
