/// An error an SMP server answered with, in either shape (zephyr `smp_protocol.rst`, "Minimal
/// response"): `{"rc": n}` (SMP version 1, and errors of SMP itself in version 2) or
/// `{"err": {"group": g, "rc": n}}` (version 2 group errors), with the optional `rsn` text of
/// `CONFIG_MCUMGR_GRP_IMG_VERBOSE_ERR`.
public enum SMPError: Sendable, Hashable, CustomStringConvertible {
    /// A `mcumgr_err_t` code.
    case management(SMPManagementError, reason: String?)
    /// An image group error (version 2, group 1).
    case image(SMPImageError)
    /// Another group's error (version 2), by number.
    case group(SMPGroup, rc: Int)

    /// The C name, e.g. "IMG_MGMT_ERR_NO_FREE_SLOT".
    public var name: String {
        switch self {
        case .management(let error, _): error.name
        case .image(let error): error.name
        case .group(let group, let rc): "\(group) error \(rc)"
        }
    }

    /// One sentence of what to do.
    public var advice: String {
        switch self {
        case .management(let error, _): error.advice
        case .image(let error): error.advice
        case .group: "See the firmware's documentation for this group's error codes."
        }
    }

    /// The advice as a clause to follow a semicolon, as every error sentence of `dfu` continues: the first
    /// letter lower-case (unless it starts an acronym such as "SMP"), no full stop.
    public var adviceClause: String {
        var text = advice
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first, text.dropFirst().first?.isLowercase == true else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// e.g. "IMG_MGMT_ERR_NO_FREE_SLOT (9): there is no free slot for the image"; a reason text is
    /// added in quotes with control characters removed.
    public var description: String {
        switch self {
        case .management(let error, let reason?):
            let clean = String(reason.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(120))
            return "\(error) (\"\(clean)\")"
        case .management(let error, nil): return error.description
        case .image(let error): return error.description
        case .group(let group, let rc): return "\(group) group error \(rc)"
        }
    }
}
