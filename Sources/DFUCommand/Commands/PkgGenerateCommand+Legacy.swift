import DFUCore
import DFUFormats

extension PkgGenerateCommand {
    /// The options only Secure packages have (adafruit-nrfutil's `dfu genpkg` does not know them).
    static let secureOnlyOptions = [
        "application-version-string", "bootloader-version", "hw-version", "sd-id", "key-file",
        "app-boot-validation", "sd-boot-validation",
    ]

    /// `--dfu-ver 0.5|0.6`: a Legacy package with adafruit-nrfutil 0.5.3.post16's `dfu genpkg`
    /// defaults and meanings (`nordicsemi/__main__.py`, `genpkg`): versions and types default to
    /// all ones, `--sd-req` to 0xFFFE, `none` leaves a field out (`--sd-req none`: an empty list).
    static func runLegacy(_ arguments: ParsedArguments, output: String, context: CommandContext) throws -> ExitCode {
        let version = arguments.value("dfu-ver") ?? ""
        switch Double(version) {
        case 0.5, 0.6: break
        case 0.7, 0.8:
            throw usage("--dfu-ver \(version) (SHA-256 or signed Legacy packages) is not supported; adafruit-nrfutil 0.5.3 fails on them under Python 3 too")
        default:
            throw usage("option --dfu-ver: '\(version)' is not 0.5 or 0.6")
        }
        for option in secureOnlyOptions where arguments.value(option) != nil {
            throw usage("--\(option) is an option of Secure packages, not of Legacy ones (--dfu-ver)")
        }
        for flag in ["debug-mode", "external-app"] where arguments.flag(flag) {
            throw usage("--\(flag) is an option of Secure packages, not of Legacy ones (--dfu-ver)")
        }
        var request = LegacyPackageRequest(withExtendedPacketID: Double(version) == 0.6)
        request.applicationVersion = try legacyNumber("application-version", arguments, default: 0xFFFF_FFFF)
        request.deviceType = try legacyNumber("dev-type", arguments, default: legacyFieldUnset)
        request.deviceRevision = try legacyNumber("dev-revision", arguments, default: legacyFieldUnset)
        let sdReq = arguments.value("sd-req") ?? "65534"
        if sdReq.lowercased() == "none" {
            request.softdeviceRequirements = []
        } else if sdReq.isEmpty {
            request.softdeviceRequirements = nil
        } else {
            request.softdeviceRequirements = try idList("sd-req", sdReq).map { id throws(UsageError) in
                guard let value = UInt16(exactly: id) else {
                    throw usage("option --sd-req: \(id) does not fit the 16 bits of a Legacy init packet")
                }
                return value
            }
        }
        if let path = arguments.value("application") { request.application = .init(path: path, bytes: try context.readFile(path)) }
        if let path = arguments.value("bootloader") { request.bootloader = .init(path: path, bytes: try context.readFile(path)) }
        if let path = arguments.value("softdevice") { request.softdevice = .init(path: path, bytes: try context.readFile(path)) }
        guard request.application != nil || request.bootloader != nil || request.softdevice != nil else {
            throw usage("no image: give --application, --bootloader and/or --softdevice")
        }
        let package: GeneratedPackage
        do {
            package = try LegacyPackageGenerator.generate(request)
        } catch {
            if error.isUsage { throw usage(error.description) }
            throw error
        }
        try write(package, to: output, context: context)
        context.writeOutput("Zip created at \(output)\n")
        return .success
    }

    /// A Legacy number option: its default when absent, nil for `none`, else within the field's width.
    static func legacyNumber<T: FixedWidthInteger>(_ option: String, _ arguments: ParsedArguments, default value: T) throws(UsageError) -> T? {
        guard arguments.value(option) != nil else { return value }
        guard let number = try number(option, arguments) else { return nil }
        guard let result = T(exactly: number) else {
            throw usage("option --\(option): \(number) does not fit the \(T.bitWidth) bits of a Legacy init packet")
        }
        return result
    }
}
