/// The names images get inside a generated package, as nrfutil gives them: the input's file name
/// with `.hex` made `.bin` (its init packet then takes `.dat`); two inputs that would get one name are
/// refused instead of one overwriting the other.
struct PackageMemberNames {
    /// Member name → the input path that took it.
    private var taken: [String: String] = [:]

    /// The member name of `firmware`'s image.
    mutating func binName(of firmware: SecurePackageRequest.Firmware) throws(PackageGenerationError) -> String {
        let binName = firmware.baseName.replacingAll(".hex", with: ".bin")
        guard binName.contains(".bin") else {
            throw .usage("\(firmware.path): the file name must end in .bin or .hex (it names the image and its .dat in the package)")
        }
        if let other = taken[binName] {
            throw .usage("\(firmware.path) and \(other) would both be \(binName) in the package; rename one")
        }
        taken[binName] = firmware.path
        return binName
    }

    /// Takes `name` for a member the generator makes itself (`sd_bl.bin`), described as `what` when an
    /// input would get the same name.
    mutating func reserve(_ name: String, for what: String) {
        taken[name] = what
    }
}
