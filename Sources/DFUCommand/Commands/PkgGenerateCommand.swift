import SystemSupport
import DFUCore
import DFUCrypto
import ZipArchive
import DFUFormats

/// `dfu pkg generate OUT.zip`: makes a DFU package as nrfutil 6.1.7's `pkg generate` does, with
/// its options, their meanings, and the combinations it accepts and refuses
/// (`nordicsemi/__main__.py`, `generate` under `pkg`); `--dfu-ver` makes a Legacy package instead.
enum PkgGenerateCommand: Subcommand {
    static let name = "pkg generate"
    static let abstract = "make a DFU package (zip), byte for byte as nrfutil 6.1.7"
    static let synopsis = "OUT.zip --hw-version N --sd-req IDS [--application FILE --application-version N] [--bootloader FILE --bootloader-version N] [--softdevice FILE] [--sd-id IDS] [--key-file PRIVATE.pem] [options]"
    static let discussion = """
        Makes a Secure DFU package from .bin or .hex images with nrfutil 6.1.7's options, so that
        a script only changes the program name: the same combinations are accepted and refused
        (bootloader + application needs a SoftDevice too; a SoftDevice + application needs
        --sd-id), a SoftDevice and a bootloader become one sd_bl.bin image, HEX files are
        flattened as nrfutil does (MBR and UICR dropped, gaps and the last word padded with 0xFF),
        and the zip holds the same files with the same bytes. With --key-file every init packet is
        signed with ECDSA P-256. Numbers are decimal, 0x-hexadecimal or 0-octal as for nrfutil.
        Nothing is written unless the whole package is made (a temporary file is renamed).
        With --dfu-ver 0.5 or 0.6 it makes a Legacy package instead, as adafruit-nrfutil's
        'dfu genpkg' does (--application-version, --dev-type, --dev-revision, --sd-req).
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu pkg generate app.zip --application app.hex --application-version 3 --hw-version 52 --sd-req 0x0101 --key-file private.pem",
         "a signed application package"),
        ("dfu pkg generate full.zip --softdevice s132.hex --bootloader bl.hex --bootloader-version 2 --application app.hex --application-version-string 1.2.3 --hw-version 52 --sd-req 0xB7 --sd-id 0x0101 --key-file private.pem",
         "SoftDevice + bootloader + application"),
    ]
    static let validations = ["NO_VALIDATION", "VALIDATE_GENERATED_CRC", "VALIDATE_GENERATED_SHA256", "VALIDATE_ECDSA_P256_SHA256"]
    /// The boot validation when `--app-boot-validation` / `--sd-boot-validation` is not given (nrfutil's).
    static let defaultValidation = SecureInitPacket.ValidationType.generatedCRC
    /// A Legacy init packet's device type and revision when not given (nrfutil 0.5's "any").
    static let legacyFieldUnset: UInt16 = 0xFFFF
    static let options: [OptionSpec] = [
        .value("application", "FILE", help: "the application image (.bin, or Intel HEX)"),
        .value("application-version", "N", help: "the application's fw_version ('none' = not given)"),
        .value("application-version-string", "X.Y.Z", help: "the same as X*10000 + Y*100 + Z (wins over --application-version)"),
        .value("bootloader", "FILE", help: "the bootloader image"),
        .value("bootloader-version", "N", help: "the bootloader's fw_version"),
        .value("softdevice", "FILE", help: "the SoftDevice image"),
        .value("hw-version", "N", help: "hw_version of every part (required unless --debug-mode)"),
        .value("sd-req", "IDS", help: "comma-separated SoftDevice firmware IDs the device may have, e.g. 0xB7,0x0101"),
        .value("sd-id", "IDS", help: "the IDs of the SoftDevice in the package: the application's sd_req"),
        .value("key-file", "PRIVATE.pem", help: "sign the init packets with this ECDSA P-256 private key"),
        .value("app-boot-validation", "TYPE", help: validations.joined(separator: "|"),
               default: validations[Int(defaultValidation.rawValue)]),
        .value("sd-boot-validation", "TYPE", help: "the same for the SoftDevice"),
        .flag("debug-mode", help: "set is_debug; versions default to 0xFFFFFFFF and --sd-req to 0xFFFE"),
        .flag("external-app", help: "an EXTERNAL_APPLICATION (passed on, not installed); application only"),
        .value("dfu-ver", "0.5|0.6", help: "make a Legacy package instead, as adafruit-nrfutil / nrfutil 0.5.x (CRC-16 init packet)"),
        .value("dev-type", "N", help: "Legacy: device_type", default: "0x" + String(legacyFieldUnset, radix: 16, uppercase: true)),
        .value("dev-revision", "N", help: "Legacy: device_revision",
               default: "0x" + String(legacyFieldUnset, radix: 16, uppercase: true)),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let output = try arguments.positionals(named: ["OUT.zip"])[0]
        let inputs = ["application", "bootloader", "softdevice", "key-file"].compactMap { option in
            arguments.value(option).map { (option: option, path: $0) }
        }
        if let option = FileWriter.inputOverwritten(by: output, inputs: inputs) {
            throw usage("\(output) is also the file of --\(option); the package goes to another file")
        }
        if arguments.value("dfu-ver") != nil { return try runLegacy(arguments, output: output, context: context) }
        for option in ["dev-type", "dev-revision"] where arguments.value(option) != nil {
            throw usage("--\(option) is an option of Legacy packages: add --dfu-ver 0.5 or 0.6")
        }
        let application = arguments.value("application")
        let bootloader = arguments.value("bootloader")
        let softdevice = arguments.value("softdevice")
        // The checks in the order nrfutil makes them, so the first complaint is the same.
        if bootloader != nil && application != nil && softdevice == nil {
            throw usage("a bootloader and an application without a SoftDevice cannot share a package: make two packages")
        }
        var request = try secureRequest(
            arguments, application: application, bootloader: bootloader, softdevice: softdevice, context: context)
        var key: ECDSAP256.PrivateKey? = nil
        if let path = arguments.value("key-file") { key = try privateKey(path, context: context) }
        if let path = application { request.application = .init(path: path, bytes: try context.readFile(path)) }
        if let path = bootloader { request.bootloader = .init(path: path, bytes: try context.readFile(path)) }
        if let path = softdevice { request.softdevice = .init(path: path, bytes: try context.readFile(path)) }
        guard request.application != nil || request.bootloader != nil || request.softdevice != nil else {
            throw usage("no image: give --application, --bootloader and/or --softdevice")
        }
        let signer: SecurePackageGenerator.Signer? = key.map { key in { message in try? key.sign(message) } }
        let package = try generate(request, signer: signer)
        try write(package, to: output, context: context)
        if key == nil {
            context.writeError("dfu: warning: no --key-file: the init packets are not signed; only a bootloader that checks no signature accepts them\n")
        }
        if request.isDebug {
            context.writeError("dfu: warning: --debug-mode: is_debug is set; only a debug bootloader accepts the package\n")
        }
        context.writeOutput("Zip created at \(output)\n")
        return .success
    }

    /// The Secure package's fields from the options, checked in the order nrfutil checks them; the images are
    /// read later.
    static func secureRequest(
        _ arguments: ParsedArguments, application: String?, bootloader: String?, softdevice: String?, context: CommandContext
    ) throws -> SecurePackageRequest {
        var applicationVersion = try number("application-version", arguments)
        if let text = arguments.value("application-version-string"), !text.isEmpty {
            if applicationVersion.map({ $0 != 0 }) == true {
                context.writeError("dfu: warning: --application-version-string is used, --application-version ignored\n")
            }
            applicationVersion = try versionString(text)
        }
        var bootloaderVersion = try number("bootloader-version", arguments)
        var hardwareVersion = try number("hw-version", arguments)
        var sdReq = arguments.value("sd-req").flatMap { $0.lowercased() == "none" ? nil : $0 }
        let sdID = arguments.value("sd-id").flatMap { $0.lowercased() == "none" ? nil : $0 }
        let debug = arguments.flag("debug-mode")
        let external = arguments.flag("external-app")
        if applicationVersion != nil && application == nil { throw usage("--application-version without --application") }
        if bootloaderVersion != nil && bootloader == nil { throw usage("--bootloader-version without --bootloader") }
        if debug {
            applicationVersion = applicationVersion ?? 0xFFFF_FFFF
            bootloaderVersion = bootloaderVersion ?? 0xFFFF_FFFF
            hardwareVersion = hardwareVersion ?? 0xFFFF_FFFF
            sdReq = sdReq ?? "65534"
        }
        guard let hardwareVersion else { throw usage("--hw-version is required") }
        if sdReq == nil && !external { throw usage("--sd-req is required") }
        if application != nil && applicationVersion == nil {
            throw usage("--application needs --application-version or --application-version-string")
        }
        if bootloader != nil && bootloaderVersion == nil { throw usage("--bootloader needs --bootloader-version") }
        if application != nil && softdevice != nil && sdID == nil {
            throw usage("--sd-id is required with a SoftDevice and an application (the ID of the SoftDevice in the package)")
        }
        if application == nil && external { throw usage("--external-app needs --application") }
        if external && (softdevice != nil || bootloader != nil) {
            throw usage("--external-app is only possible in an application-only package")
        }
        var requirements: [UInt32] = []
        if let sdReq { requirements = try idList("sd-req", sdReq) }
        var ids: [UInt32]? = nil
        if let sdID { ids = try idList("sd-id", sdID) }
        return SecurePackageRequest(
            applicationVersion: try uint32("application version", applicationVersion ?? 0xFFFF_FFFF),
            bootloaderVersion: try uint32("--bootloader-version", bootloaderVersion ?? 0xFFFF_FFFF),
            hardwareVersion: try uint32("--hw-version", hardwareVersion),
            softdeviceRequirements: requirements, softdeviceIDs: ids,
            applicationBootValidation: try validation("app-boot-validation", arguments),
            softdeviceBootValidation: try validation("sd-boot-validation", arguments),
            isDebug: debug, isExternalApplication: external)
    }

    static func generate(_ request: SecurePackageRequest, signer: SecurePackageGenerator.Signer?) throws -> GeneratedPackage {
        do {
            return try SecurePackageGenerator.generate(request, signer: signer)
        } catch {
            if error.isUsage { throw usage(error.description) }
            throw error
        }
    }

    static func usage(_ text: String) -> UsageError { UsageError(text, command: name) }

    /// The package as a zip (entries stored, stamped with `SOURCE_DATE_EPOCH` when set, else now),
    /// written to a temporary file and renamed.
    static func write(_ package: GeneratedPackage, to output: String, context: CommandContext) throws {
        let epoch = context.environment["SOURCE_DATE_EPOCH"].flatMap { Int($0) }
        let modified = epoch ?? Int(SystemClock.realtimeNanoseconds / 1_000_000_000)
        let zip = try ZipWriter.archive(package.files.map { .init(name: $0.name, bytes: $0.bytes) }, modified: modified)
        try FileWriter.writeAtomically(zip, to: output)
    }

    /// An integer option as nrfutil reads it (`BasedIntOrNoneParamType`): nil when absent or 'none'.
    static func number(_ option: String, _ arguments: ParsedArguments) throws(UsageError) -> Int64? {
        guard let text = arguments.value(option), text.lowercased() != "none" else { return nil }
        guard let value = NrfutilInteger.parse(text) else {
            throw UsageError("option --\(option): '\(text)' is not a valid integer", command: name)
        }
        return value
    }

    /// `--application-version-string X.Y.Z` as nrfutil converts it (`convert_version_string_to_int`).
    static func versionString(_ text: String) throws(UsageError) -> Int64 {
        let numbers = text.split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 3 else {
            throw UsageError("option --application-version-string: '\(text)' must be on the format x.y.z", command: name)
        }
        var total: Int64 = 0
        for (number, weight) in zip(numbers, [10000, 100, 1] as [Int64]) {
            guard let value = NrfutilInteger.pythonInt(number, base: 10), abs(value) < 1 << 40 else {
                throw UsageError("option --application-version-string: '\(text)' must be three whole numbers x.y.z", command: name)
            }
            total += value * weight
        }
        return total
    }

    static func uint32(_ what: String, _ value: Int64) throws(UsageError) -> UInt32 {
        guard let result = UInt32(exactly: value) else {
            throw UsageError("\(what) \(value) is outside 0...0xFFFFFFFF", command: name)
        }
        return result
    }

    /// A comma-separated ID list (`--sd-req`, `--sd-id`), every item a 32-bit number.
    static func idList(_ option: String, _ text: String) throws(UsageError) -> [UInt32] {
        var result: [UInt32] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = NrfutilInteger.parse(String(item)), let id = UInt32(exactly: value) else {
                throw UsageError("option --\(option): '\(item)' is not a valid integer from 0 to 0xFFFFFFFF", command: name)
            }
            result.append(id)
        }
        return result
    }

    static func validation(_ option: String, _ arguments: ParsedArguments) throws(UsageError) -> SecureInitPacket.ValidationType {
        guard let text = arguments.value(option) else { return defaultValidation }
        guard let index = validations.firstIndex(of: text) else {
            throw UsageError("option --\(option): '\(text)' is not one of \(validations.joined(separator: ", "))", command: name)
        }
        return SecureInitPacket.ValidationType(rawValue: [0, 1, 2, 3][index])
    }

    /// The signing key: unreadable is exit 66, not an ECDSA P-256 private key exit 65.
    static func privateKey(_ path: String, context: CommandContext) throws -> ECDSAP256.PrivateKey {
        let pem = try context.readFile(path)
        do {
            return try ECDSAP256.PrivateKey(pem: pem)
        } catch {
            throw BadInputError(path: path, cause: error.description)
        }
    }
}
