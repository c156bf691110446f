/// The SMP commands this tool sends, each with its group, command ID and operation (zephyr
/// `doc/services/device_mgmt/smp_groups/smp_group_0.rst` and `smp_group_1.rst`; IDs as in
/// `img_mgmt.h` `IMG_MGMT_ID_*` and `os_mgmt.h` `OS_MGMT_ID_*`).
public enum SMPCommand: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// OS group 0, command 0, write: echo a string.
    case echo
    /// OS group 0, command 5, write: reset the device (it answers first, then resets).
    case reset
    /// OS group 0, command 6, read: the MCUmgr parameters buf_size and buf_count.
    case parameters
    /// OS group 0, command 8, read: the bootloader and its mode.
    case bootloaderInfo
    /// Image group 1, command 0, read: the state of the images.
    case imageState
    /// Image group 1, command 0, write: mark an image for test, or confirm it.
    case setImageState
    /// Image group 1, command 1, write: one chunk of an image upload.
    case upload
    /// Image group 1, command 5, write: erase a slot.
    case erase
    /// Image group 1, command 6, read: the slots and their sizes.
    case slotInfo

    /// The management group.
    public var group: SMPGroup {
        switch self {
        case .echo, .reset, .parameters, .bootloaderInfo: .os
        case .imageState, .setImageState, .upload, .erase, .slotInfo: .image
        }
    }

    /// The command ID within the group.
    public var id: UInt8 {
        switch self {
        case .echo, .imageState, .setImageState: 0
        case .upload: 1
        case .reset, .erase: 5
        case .parameters, .slotInfo: 6
        case .bootloaderInfo: 8
        }
    }

    /// The request's operation.
    public var operation: SMPOperation {
        switch self {
        case .parameters, .bootloaderInfo, .imageState, .slotInfo: .read
        case .echo, .reset, .setImageState, .upload, .erase: .write
        }
    }

    /// Whether a frame's header is this command's response.
    public func isAnswered(by header: SMPHeader) -> Bool {
        header.group == group && header.command == id && header.operation == operation.response
    }

    /// "echo", "reset", "MCUmgr parameters", "bootloader info", "image state", "image test/confirm", "image upload",
    /// "image erase", "slot info".
    public var description: String {
        switch self {
        case .echo: "echo"
        case .reset: "reset"
        case .parameters: "MCUmgr parameters"
        case .bootloaderInfo: "bootloader info"
        case .imageState: "image state"
        case .setImageState: "image test/confirm"
        case .upload: "image upload"
        case .erase: "image erase"
        case .slotInfo: "slot info"
        }
    }
}
