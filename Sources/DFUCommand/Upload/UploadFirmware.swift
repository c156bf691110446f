import DFUCore
import DFUFormats

/// What `dfu upload` sends, chosen from the file: an nRF5 package (Secure or Legacy DFU), or MCUboot
/// images (a lone image or an nRF Connect SDK zip) as an SMP upload plan.
enum UploadFirmware: Sendable {
    /// An nRF5 package, checked.
    case nrf5(DFUPackage)
    /// MCUboot images for an SMP (MCUmgr) server, checked, with how the upload ends.
    case smp(SMPUploadPlan)

    /// The firmware of the files named (one, or an nRF5 package and an MCUboot file for a mixed fleet), read
    /// and checked completely (hashes, and signatures with `--key`), with the options that fit neither refused.
    static func load(_ settings: UploadSettings, context: CommandContext) throws -> [UploadFirmware] {
        let both = settings.sources.count == 2
        let loaded = try settings.sources.map { source in
            try load(source, settings: settings, context: context, mixed: both)
        }
        if both {
            switch (loaded[0], loaded[1]) {
            case (.nrf5, .smp), (.smp, .nrf5): break
            default:
                throw UsageError("two files of the same kind (\(settings.sources[0].path), \(settings.sources[1].path)); "
                    + "give one nRF5 package and one MCUboot image or nRF Connect SDK zip, for a fleet of both kinds",
                    command: UploadCommand.name)
            }
        }
        return loaded
    }

    /// The firmware of the file `source` names; unless the run is `mixed`, the options of the other kind are refused.
    private static func load(_ source: PackageSource, settings: UploadSettings, context: CommandContext, mixed: Bool) throws
        -> UploadFirmware {
        let path = source.path
        switch try source.contents(keyPath: settings.keyPath, context: context) {
        case .nrf5(let report):
            if !mixed, let option = settings.smpOnlyOptionGiven {
                throw UsageError("option --\(option) is for MCUboot images (SMP); \(path) is an nRF5 package", command: UploadCommand.name)
            }
            let package: DFUPackage
            do {
                package = try report.checkedPackage()
            } catch {
                throw BadInputError(path: path, cause: error.description)
            }
            guard package.parts.contains(where: { settings.options.scope.includes($0.kind) }) else {
                throw BadInputError(path: path, cause: "has no part in the \(settings.options.scope.rawValue) scope")
            }
            return .nrf5(package)
        case .mcuboot(let report):
            if !mixed, let option = settings.nrf5OnlyOptionGiven {
                // An SMP server resumes only an upload of the same file (its SHA-256) and forgets it when its slot
                // is erased (img_mgmt_erase calls img_mgmt_reset_upload) or it resets (the state is in RAM).
                let fresh = option == "no-resume"
                    ? "; an SMP upload resumes only an interrupted upload of the same file: to start over, run 'dfu erase' "
                        + "on the device first (or reset it)"
                    : ""
                throw UsageError("option --\(option) is for nRF5 packages; \(path) is an MCUboot image (sent over SMP)" + fresh,
                                 command: UploadCommand.name)
            }
            do {
                try report.check()
            } catch {
                throw BadInputError(path: path, cause: source.causeWithoutOwnName(error.description))
            }
            return .smp(try plan(report, path: path, settings: settings.smp))
        }
    }

    /// The upload plan for checked MCUboot images: each image to the image number its manifest gives
    /// (`--image` for a lone image; 0 by default), named by its hash TLV as the device's image list shows it.
    static func plan(_ report: MCUbootPackageReport, path: String, settings: SMPSettings) throws -> SMPUploadPlan {
        if settings.image != nil, report.manifest != nil {
            throw UsageError("option --image is for a lone MCUboot image; \(path) is a package whose manifest numbers its images",
                             command: UploadCommand.name)
        }
        var images: [SMPUploadImage] = []
        for entry in report.images {
            let number = report.manifest == nil ? settings.image ?? 0 : entry.imageIndex
            guard let number else {
                if entry.manifestEntry?.type == "mcuboot" {
                    throw BadInputError(path: path, cause: "\(entry.name) is an MCUboot bootloader update (the S0/S1 variants of dfu_mcuboot.zip); "
                        + "dfu upload sends application images only: which variant a device takes depends on its active B0 slot, which dfu does not read")
                }
                throw BadInputError(path: path, cause: "the manifest gives \(entry.name) no image_index")
            }
            guard let hash = entry.image.imageHash ?? entry.image.tlvs.first(where: { [MCUbootTLV.sha384, MCUbootTLV.sha512].contains($0.type) })?.value
            else {
                throw BadInputError(path: path, cause: "\(entry.name) has no hash TLV, by which MCUmgr names an image")
            }
            if images.contains(where: { $0.image == number }) {
                throw BadInputError(path: path, cause: "two images are for image \(number); an SMP upload sends one image per image number")
            }
            images.append(SMPUploadImage(image: number, bytes: entry.image.bytes, imageHash: hash))
        }
        return SMPUploadPlan(images: images, ending: settings.ending, frameSize: settings.frameSize, window: settings.window,
                             firmwareLoader: settings.firmwareLoader)
    }
}
