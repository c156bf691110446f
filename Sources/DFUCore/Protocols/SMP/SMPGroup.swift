/// An SMP management group (zephyr `mgmt_defines.h`, `enum mcumgr_group_t`); only the groups this
/// tool speaks have names.
public struct SMPGroup: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The group ID as sent.
    public let rawValue: UInt16

    /// Any group ID.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Group 0, OS management (MGMT_GROUP_ID_OS): echo, reset, MCUmgr parameters.
    public static let os = SMPGroup(rawValue: 0)
    /// Group 1, image management (MGMT_GROUP_ID_IMAGE): state, upload, erase, slot info.
    public static let image = SMPGroup(rawValue: 1)

    /// "OS", "image" or "group N".
    public var description: String {
        switch rawValue {
        case 0: "OS"
        case 1: "image"
        default: "group \(rawValue)"
        }
    }
}
