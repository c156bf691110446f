internal import CBOR

extension SMPRequest {
    /// Reads a request frame as a server does (for simulated servers and tests): the command from the
    /// header's group, ID and operation (echo also as a read, which `smp_group_0.rst` allows), the
    /// fields from the body. Commands this tool does not speak are refused with `unknownCommand`.
    public init(frame: SMPFrame) throws(SMPRequest.DecodingError) {
        let header = frame.header
        guard let command = SMPCommand.allCases.first(where: {
            $0.group == header.group && $0.id == header.command && $0.operation == header.operation
        }) ?? (header.group == .os && header.command == 0 && header.operation == .read ? .echo : nil)
        else { throw .unknownCommand(header) }
        let body: CBOR
        do { body = try frame.decodedBody() } catch { throw .body(.frame(error)) }
        do throws(SMPResponse.DecodingError) {
            switch command {
            case .echo:
                guard let text = try body.optionalText("d") else { throw .missingField("d") }
                self = .echo(text)
            case .reset:
                // `os_mgmt_reset` ignores a field it cannot decode: only an unsigned `boot_mode` counts.
                switch body["boot_mode"] {
                case .unsigned(let mode)?:
                    guard let mode = UInt8(exactly: mode) else { throw .outOfRange(field: "boot_mode", value: String(mode)) }
                    self = .resetWithBootMode(mode)
                default: self = .reset
                }
            case .parameters: self = .parameters
            case .bootloaderInfo: self = .bootloaderInfo(query: try body.optionalText("query"))
            case .imageState: self = .imageState
            case .setImageState:
                let hash = try body.optionalBytes("hash")
                if try body.optionalBool("confirm") == true {
                    self = .confirm(hash: hash)
                } else {
                    guard let hash else { throw .missingField("hash") }
                    self = .test(hash: hash)
                }
            case .upload: self = .upload(try SMPUploadChunk(body: body))
            case .erase: self = .erase(slot: try body.optionalInt("slot"))
            case .slotInfo: self = .slotInfo
            }
        } catch {
            throw .body(error)
        }
    }

    /// Why a frame is not a request this tool knows.
    public enum DecodingError: Error, Sendable, Hashable {
        /// The group, command ID and operation name no command of ``SMPCommand``.
        case unknownCommand(SMPHeader)
        /// The body lacks a field or has one of the wrong type.
        case body(SMPResponse.DecodingError)
    }
}
