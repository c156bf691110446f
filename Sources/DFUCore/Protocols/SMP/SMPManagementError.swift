/// An SMP `rc`: the MCUmgr error codes every group shares (zephyr
/// `include/zephyr/mgmt/mcumgr/mgmt/mgmt_defines.h`, `enum mcumgr_err_t`). SMP version 1 servers
/// report every error this way; version 2 servers still do for errors of SMP itself
/// (`smp_protocol.rst`, "Minimal response").
public struct SMPManagementError: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as sent.
    public let rawValue: Int

    /// Any code.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// MGMT_ERR_EOK: success (never sent as an error).
    public static let ok = Self(rawValue: 0)
    /// MGMT_ERR_EUNKNOWN.
    public static let unknown = Self(rawValue: 1)
    /// MGMT_ERR_ENOMEM.
    public static let noMemory = Self(rawValue: 2)
    /// MGMT_ERR_EINVAL.
    public static let invalidValue = Self(rawValue: 3)
    /// MGMT_ERR_ETIMEOUT.
    public static let timeout = Self(rawValue: 4)
    /// MGMT_ERR_ENOENT.
    public static let noEntry = Self(rawValue: 5)
    /// MGMT_ERR_EBADSTATE.
    public static let badState = Self(rawValue: 6)
    /// MGMT_ERR_EMSGSIZE.
    public static let messageTooLarge = Self(rawValue: 7)
    /// MGMT_ERR_ENOTSUP.
    public static let notSupported = Self(rawValue: 8)
    /// MGMT_ERR_ECORRUPT.
    public static let corrupt = Self(rawValue: 9)
    /// MGMT_ERR_EBUSY.
    public static let busy = Self(rawValue: 10)
    /// MGMT_ERR_EACCESSDENIED.
    public static let accessDenied = Self(rawValue: 11)
    /// MGMT_ERR_UNSUPPORTED_TOO_OLD.
    public static let versionTooOld = Self(rawValue: 12)
    /// MGMT_ERR_UNSUPPORTED_TOO_NEW.
    public static let versionTooNew = Self(rawValue: 13)

    private static let table: [Int: (name: String, meaning: String, advice: String)] = [
        0: ("MGMT_ERR_EOK", "no error", "Nothing to do."),
        1: ("MGMT_ERR_EUNKNOWN", "unknown error",
            "The device gave no cause; its reason text or log may say more, then try again."),
        2: ("MGMT_ERR_ENOMEM", "insufficient memory",
            "The device ran out of buffers; send smaller chunks or fewer requests at a time."),
        3: ("MGMT_ERR_EINVAL", "error in an input value",
            "The device refused a value of the request; check the image and the options given."),
        4: ("MGMT_ERR_ETIMEOUT", "operation timed out", "The device timed out internally; try again."),
        5: ("MGMT_ERR_ENOENT", "no such entry",
            "The device has no such image or entry; read its image list to see what it holds."),
        6: ("MGMT_ERR_EBADSTATE", "current state disallows the command",
            "The device's state forbids this now (an image may already be pending); read the image list, reset the device or erase the slot, then retry."),
        7: ("MGMT_ERR_EMSGSIZE", "response too large",
            "The answer did not fit the device's buffer; send smaller chunks."),
        8: ("MGMT_ERR_ENOTSUP", "command not supported",
            "The firmware was built without this command; do without it or rebuild the firmware with it enabled."),
        9: ("MGMT_ERR_ECORRUPT", "corrupt data", "The device found corrupt data; send the image again from the start."),
        10: ("MGMT_ERR_EBUSY", "busy with another command", "The device is busy with another command; wait and try again."),
        11: ("MGMT_ERR_EACCESSDENIED", "access denied",
             "The device refused access; pair with it (or authenticate) first."),
        12: ("MGMT_ERR_UNSUPPORTED_TOO_OLD", "SMP version too old",
             "The device refuses the SMP version sent; use SMP version 2."),
        13: ("MGMT_ERR_UNSUPPORTED_TOO_NEW", "SMP version too new",
             "The device only speaks SMP version 1; use version 1."),
    ]

    /// The C name, e.g. "MGMT_ERR_EBADSTATE"; codes from 256 on are the application's own.
    public var name: String {
        if let entry = Self.table[rawValue] { return entry.name }
        return rawValue >= 256 ? "MGMT_ERR_EPERUSER+\(rawValue - 256)" : "MGMT_ERR \(rawValue)"
    }

    /// What the code means, from the header's comment.
    public var meaning: String {
        if let entry = Self.table[rawValue] { return entry.meaning }
        return rawValue >= 256 ? "an error defined by the application" : "an error code this tool does not know"
    }

    /// One sentence of what to do.
    public var advice: String {
        if let entry = Self.table[rawValue] { return entry.advice }
        return "See the firmware's documentation for this code."
    }

    /// e.g. "MGMT_ERR_EBADSTATE (6): current state disallows the command".
    public var description: String { "\(name) (\(rawValue)): \(meaning)" }
}
