public import CBOR

/// A request this tool sends, with its body (zephyr `smp_group_0.rst`, `smp_group_1.rst`).
public enum SMPRequest: Sendable, Hashable, CustomStringConvertible {
    /// `{"d": text}`: the server answers `{"r": text}`.
    case echo(String)
    /// `{}`: the server answers, then resets.
    case reset
    /// `{"boot_mode": n}`: the server answers, sets the retained boot mode (1: the bootloader's, which MCUboot in
    /// firmware loader mode takes as "start the loader"; `bootmode_set` in zephyr `os_mgmt_reset`, built with
    /// `MCUMGR_GRP_OS_RESET_BOOT_MODE`), then resets. A server built without it ignores the field and just resets.
    case resetWithBootMode(UInt8)
    /// `{"query": q}` or `{}`: the bootloader, or (query "mode") its mode.
    case bootloaderInfo(query: String?)
    /// `{}`: read buf_size and buf_count.
    case parameters
    /// `{}`: read the image list.
    case imageState
    /// `{"hash": h, "confirm": false}`: run the image with this SHA256 TLV once, on the next reset.
    case test(hash: [UInt8])
    /// `{"hash": h, "confirm": true}`, or `{"confirm": true}` to confirm the running image.
    case confirm(hash: [UInt8]?)
    /// One upload chunk.
    case upload(SMPUploadChunk)
    /// `{"slot": n}` or `{}` (slot 1).
    case erase(slot: Int?)
    /// `{}`: read the slots.
    case slotInfo

    /// The command.
    public var command: SMPCommand {
        switch self {
        case .echo: .echo
        case .reset, .resetWithBootMode: .reset
        case .parameters: .parameters
        case .bootloaderInfo: .bootloaderInfo
        case .imageState: .imageState
        case .test, .confirm: .setImageState
        case .upload: .upload
        case .erase: .erase
        case .slotInfo: .slotInfo
        }
    }

    /// The CBOR body. The state write's `hash` is a byte string, as `img_mgmt_state_write`
    /// (`img_mgmt_state.c`) decodes it (the group's documentation shows "(str)").
    public var body: CBOR {
        switch self {
        case .echo(let text): .map(["d": .text(text)])
        case .reset, .parameters, .imageState, .slotInfo, .bootloaderInfo(query: nil): .map([])
        case .resetWithBootMode(let mode): .map(["boot_mode": .unsigned(UInt64(mode))])
        case .bootloaderInfo(let query?): .map(["query": .text(query)])
        case .test(let hash): .map(["hash": .bytes(hash), "confirm": .bool(false)])
        case .confirm(let hash?): .map(["hash": .bytes(hash), "confirm": .bool(true)])
        case .confirm(nil): .map(["confirm": .bool(true)])
        case .upload(let chunk): chunk.body
        case .erase(let slot?): .map(["slot": .int(slot)])
        case .erase(nil): .map([])
        }
    }

    /// The frame with this sequence number.
    public func frame(sequence: UInt8, version: SMPVersion = .version2) throws(CBORError) -> SMPFrame {
        try SMPFrame(operation: command.operation, version: version, group: command.group, command: command.id,
                     sequence: sequence, body: body)
    }

    /// e.g. "image upload off 0, 2380 bytes (len 150000, sha)".
    public var description: String {
        switch self {
        case .upload(let chunk): "image upload \(chunk)"
        case .test: "image test"
        case .confirm(let hash): hash == nil ? "image confirm (running image)" : "image confirm"
        case .resetWithBootMode(let mode): "reset with boot mode \(mode)"
        default: command.description
        }
    }
}
