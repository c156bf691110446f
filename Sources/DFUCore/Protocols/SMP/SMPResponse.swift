internal import CBOR

/// A decoded SMP response to one of ``SMPCommand``'s commands, or the error it carries.
public enum SMPResponse: Sendable, Hashable, CustomStringConvertible {
    /// Echo's `r`.
    case echo(String)
    /// Reset accepted (the device resets next).
    case reset
    /// The MCUmgr parameters.
    case parameters(SMPParameters)
    /// The bootloader info.
    case bootloaderInfo(SMPBootloaderInfo)
    /// The image list (answer to a state read, test or confirm).
    case imageState([SMPImageSlotState])
    /// Upload accepted: the server's next offset, and `match` in the last chunk's answer when the
    /// server checks the hash (`CONFIG_IMG_ENABLE_IMAGE_CHECK`; `img_mgmt_upload`).
    case upload(offset: Int?, match: Bool?)
    /// The slot was erased.
    case erase
    /// The slots per image.
    case slotInfo([SMPSlotInfo])
    /// The server refused the request.
    case failure(SMPError)

    /// Why a frame is not a valid answer to the command.
    public enum DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The frame itself (header or CBOR) is bad.
        case frame(SMPFrame.DecodingError)
        /// The frame answers another command or is a request.
        case notTheResponse(SMPHeader, expected: SMPCommand)
        /// A required field is missing.
        case missingField(String)
        /// A field has the wrong CBOR type.
        case wrongType(field: String, found: String)
        /// An integer field is outside its range (``SMPFieldRange``).
        case outOfRange(field: String, value: String)

        /// The engine's error for this decoding error of `frame`: a number out of range is named
        /// (``DFUError/outOfRange(field:value:allowed:)``), anything else is an unexpected answer.
        func dfuError(step: DFUStep, frame: SMPFrame) -> DFUError {
            guard case .outOfRange(let field, let value) = self else {
                return .unexpectedResponse(step: step, bytes: frame.bytes)
            }
            let range = SMPFieldRange.all.first { $0.field == field }
            return .outOfRange(field: field, value: value,
                               allowed: range.map { "\($0.allowed.lowerBound)…\($0.allowed.upperBound)" } ?? "its range")
        }

        /// One line.
        public var description: String {
            switch self {
            case .frame(let error): error.description
            case .notTheResponse(let header, let expected): "SMP frame \(header) does not answer \(expected)"
            case .missingField(let field): "SMP response lacks \"\(field)\""
            case .wrongType(let field, let found):
                "SMP response field \"\(field)\" has the wrong type: \(String(found.prefix(60)))"
            case .outOfRange(let field, let value):
                "SMP response field \"\(field)\" is out of range: \(value)"
            }
        }
    }

    /// Decodes `frame` as the answer to `command`.
    public init(frame: SMPFrame, answering command: SMPCommand) throws(DecodingError) {
        guard command.isAnswered(by: frame.header) else { throw .notTheResponse(frame.header, expected: command) }
        let body: CBOR
        do { body = try frame.decodedBody() } catch { throw .frame(error) }
        if let error = try Self.error(in: body) {
            self = .failure(error)
            return
        }
        switch command {
        case .echo:
            guard let text = try body.optionalText("r") else { throw .missingField("r") }
            self = .echo(text)
        case .reset:
            self = .reset
        case .parameters:
            self = .parameters(SMPParameters(bufferSize: try body.requiredInt(SMPFieldRange.bufferSize),
                                             bufferCount: try body.requiredInt(SMPFieldRange.bufferCount)))
        case .bootloaderInfo:
            self = .bootloaderInfo(SMPBootloaderInfo(bootloader: try body.optionalText("bootloader"),
                                                     modeNumber: try body.optionalInt(SMPFieldRange.mode),
                                                     noDowngrade: try body.optionalBool("no-downgrade") ?? false))
        case .imageState, .setImageState:
            self = .imageState(try body.requiredArray("images").map { (entry) throws(DecodingError) in
                guard case .map = entry else { throw .wrongType(field: "images", found: entry.description) }
                guard let version = try entry.optionalText("version") else { throw .missingField("version") }
                return SMPImageSlotState(
                    image: try entry.optionalInt(SMPFieldRange.image) ?? 0, slot: try entry.requiredInt(SMPFieldRange.slot),
                    version: version, hash: try entry.optionalBytes("hash"),
                    bootable: try entry.optionalBool("bootable") ?? false,
                    pending: try entry.optionalBool("pending") ?? false,
                    confirmed: try entry.optionalBool("confirmed") ?? false,
                    active: try entry.optionalBool("active") ?? false,
                    permanent: try entry.optionalBool("permanent") ?? false)
            })
        case .upload:
            self = .upload(offset: try body.optionalInt(SMPFieldRange.offset), match: try body.optionalBool("match"))
        case .erase:
            self = .erase
        case .slotInfo:
            self = .slotInfo(try body.requiredArray("images").map { (entry) throws(DecodingError) in
                let slots = try entry.requiredArray("slots").map { (slot) throws(DecodingError) in
                    SMPSlotInfo.Slot(slot: try slot.requiredInt(SMPFieldRange.slot), size: try slot.requiredInt(SMPFieldRange.size),
                                     uploadImageID: try slot.optionalInt(SMPFieldRange.uploadImageID))
                }
                return SMPSlotInfo(image: try entry.requiredInt(SMPFieldRange.image), slots: slots,
                                   maxImageSize: try entry.optionalInt(SMPFieldRange.maxImageSize))
            })
        }
    }

    /// The error of a body, in either shape; nil when there is none (an `rc` of 0 is success).
    static func error(in body: CBOR) throws(DecodingError) -> SMPError? {
        if let err = body["err"] {
            guard case .map = err else { throw .wrongType(field: "err", found: err.description) }
            let group = try err.requiredInt(SMPFieldRange.group)
            let rc = try err.requiredInt(SMPFieldRange.rc)
            guard rc != 0 else { return nil }
            if group == Int(SMPGroup.image.rawValue) { return .image(SMPImageError(rawValue: rc)) }
            guard let id = UInt16(exactly: group) else { throw .outOfRange(field: "group", value: "\(group)") }
            return .group(SMPGroup(rawValue: id), rc: rc)
        }
        if let rc = try body.optionalInt(SMPFieldRange.rc), rc != 0 {
            return .management(SMPManagementError(rawValue: rc), reason: try body.optionalText("rsn"))
        }
        return nil
    }

    /// e.g. "upload: off 4096" or "failed: IMG_MGMT_ERR_NO_FREE_SLOT (9): …".
    public var description: String {
        switch self {
        case .echo(let text): "echo \"\(String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(60)))\""
        case .reset: "reset accepted"
        case .parameters(let parameters): "parameters \(parameters)"
        case .bootloaderInfo(let info): "bootloader info: \(info)"
        case .imageState(let images): "images [" + images.map(\.description).joined(separator: "; ") + "]"
        case .upload(let offset, let match):
            "upload: off \(offset.map(String.init) ?? "none")" + (match.map { ", match \($0)" } ?? "")
        case .erase: "erased"
        case .slotInfo(let images): "slot info of \(images.count) image(s)"
        case .failure(let error): "failed: \(error)"
        }
    }
}
