import DFUCore
import DFUCrypto
import ZipArchive

/// Where the firmware comes from, as named on the command line: a DFU package (`.zip`), or a raw
/// `.bin`/`.hex` image with an optional `.dat` and an explicit part type.
struct PackageSource: Sendable {
    /// The package or image path.
    let path: String
    /// For raw images: what the image is.
    let rawKind: PartKind?
    /// For raw images: the init packet path.
    let initPath: String?
    /// For raw SoftDevice+bootloader images: the two sizes.
    let softdeviceSize: UInt32?
    let bootloaderSize: UInt32?

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
        initPath = arguments.value("init")
        softdeviceSize = try arguments.integer("sd-size", in: 1...UInt32.max)
        bootloaderSize = try arguments.integer("bl-size", in: 1...UInt32.max)
        let lower = path.lowercased()
        let isRaw = lower.hasSuffix(".bin") || lower.hasSuffix(".hex")
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
        if isRaw && rawKind == nil {
            throw UsageError("a raw image (\(path)) needs --type", command: arguments.command)
        }
        if !isRaw && (rawKind != nil || initPath != nil || softdeviceSize != nil || bootloaderSize != nil) {
            throw UsageError(
                "--type, --init, --sd-size and --bl-size are for raw .bin/.hex images, not packages",
                command: arguments.command)
        }
        if rawKind == .softdeviceBootloader && (softdeviceSize == nil || bootloaderSize == nil) {
            throw UsageError("a softdevice_bootloader image needs --sd-size and --bl-size", command: arguments.command)
        }
    }

    /// Reads and inspects the firmware. Structural faults throw ``BadInputError``; hash and
    /// signature results are in the report (``PackageReport/checkedPackage()`` enforces them).
    func inspect(key: ECDSAP256.PublicKey?, context: CommandContext) throws -> PackageReport {
        let bytes = try context.readFile(path)
        do {
            if let rawKind {
                let initBytes = try initPath.map { path throws(FileReadError) in try context.readFile(path) }
                let raw = RawImage(
                    kind: rawKind, imageName: Self.fileName(path), imageBytes: bytes,
                    initPacketName: initPath.map(Self.fileName), initPacket: initBytes,
                    softdeviceSize: softdeviceSize, bootloaderSize: bootloaderSize)
                return try DFUPackage.inspect(raw: raw, key: key)
            }
            let entries: [String: [UInt8]]
            do {
                entries = try ZipArchive.readAll(bytes: bytes)
            } catch {
                throw BadInputError(path: path, cause: error.description)
            }
            return try DFUPackage.inspect(entries: entries, key: key)
        } catch let error as PackageError {
            // A raw image's errors start with its own file name, which the path already gives.
            let prefix = Self.fileName(path) + ": "
            let cause = error.description
            throw BadInputError(path: path, cause: rawKind != nil && cause.hasPrefix(prefix) ? String(cause.dropFirst(prefix.count)) : cause)
        }
    }

    /// Reads a public key for `--key`.
    static func key(at path: String?, context: CommandContext, command: String) throws -> ECDSAP256.PublicKey? {
        guard let path else { return nil }
        let pem = try context.readFile(path)
        do {
            return try ECDSAP256.PublicKey(pem: pem)
        } catch {
            throw UsageError("option --key: \(path): \(error.description)", command: command)
        }
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
