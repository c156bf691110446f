public import DFUFormats

/// Every way a DFU can fail, with what the engine was doing; each renders as one helpful sentence.
public enum DFUError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device answered a request with a failure status.
    case remote(step: DFUStep, request: String, status: DFURemoteStatus)
    /// No answer came within the timeout.
    case timeout(step: DFUStep, after: Duration)
    /// The link dropped and could not be re-established within the allowed attempts.
    case disconnected(step: DFUStep, attempts: Int)
    /// The checksum reported by the device never matched what was sent.
    case crcMismatch(step: DFUStep, object: String, expectedOffset: UInt32, reportedOffset: UInt32,
                     expectedCRC: UInt32, reportedCRC: UInt32, attempts: Int)
    /// A notification did not have the expected shape.
    case unexpectedResponse(step: DFUStep, bytes: [UInt8])
    /// The transport failed in a way that is not a disconnect or timeout (e.g. an ATT error).
    case transport(step: DFUStep, DFUTransportError)
    /// The device has no DFU service the engine can use.
    case unsupportedDevice(reason: String)
    /// No device matching what was asked for advertised within the scan timeout.
    case deviceNotFound(selector: DFUDeviceSelector, after: Duration)
    /// The bootloader did not show up after the jump or between parts.
    case bootloaderNotFound(selector: DFUDeviceSelector, after: Duration)
    /// The package was built for the other protocol family than the device's bootloader.
    case protocolMismatch(package: PackageFormat, device: PackageFormat)
    /// The firmware is of the other family than the device takes: an MCUboot image for an nRF5 device,
    /// or an nRF5 package for an SMP (MCUmgr) server. Found before anything is written.
    case firmwareMismatch(reason: String)
    /// A part cannot be sent as it is.
    case invalidPart(PartKind, reason: String)
    /// The update was cancelled (Abort was sent where the protocol allows it).
    case aborted(step: DFUStep)
    /// The device sent a number outside what its protocol allows (``DeviceFieldRange``): `field` names it,
    /// `value` is what was sent and `allowed` the range. Only this device's update ends.
    case outOfRange(field: String, value: String, allowed: String)
    /// An SMP device moved the upload offset back more often than a working link needs (``SMPUploadMachine``).
    case offsetMovedBack(image: Int, times: Int)
    /// The device's update did not finish within its overall deadline (`--deadline`).
    case deadlineExceeded(step: DFUStep, after: Duration)

    /// Whether the device rejected the init packet (the step multi-part uploads may skip past).
    public var isInitPacketRejection: Bool {
        switch self {
        case .remote(step: .executingInitPacket, _, _), .remote(step: .sendingInitParameters, _, _): true
        case .remote(step: .startingDFU, _, .legacy(let status)): status != .invalidState
        default: false
        }
    }

    /// Whether a connection attempt failed in a way another attempt may fix (not "not found").
    public var isConnectionFailure: Bool {
        switch self {
        case .timeout(step: .connecting, _), .timeout(step: .findingBootloader, _),
             .disconnected(step: .connecting, _), .disconnected(step: .findingBootloader, _),
             .transport(step: .connecting, _), .transport(step: .findingBootloader, _): true
        default: false
        }
    }

    /// One sentence: what happened, and what to try.
    public var description: String { description(uploading: true) }

    /// The sentence for a command that moves no firmware (`uploading` false: `dfu images`, `confirm`, `reset`,
    /// `erase`): its advice never promises an upload that resumes.
    public func description(uploading: Bool) -> String {
        switch self {
        case .remote(let step, let request, let status):
            var text: String
            if step == .executingInitPacket || step == .sendingInitParameters {
                text = "the bootloader rejected the init packet: \(status)"
            } else if step == .validatingFirmware || step == .validating {
                text = "the bootloader rejected the firmware after receiving it: \(status)"
            } else {
                text = "the device refused \(request) while \(step): \(status)"
            }
            if case .secure(_, let extended?) = status, let hint = extended.hint { text += "; \(hint)" }
            if case .secure(.operationNotPermitted, nil) = status {
                text += "; power-cycle the device or retry with --no-resume"
            }
            if case .legacy(.notSupported) = status { text += "; the bootloader does not support this image type" }
            if case .legacy(.operationFailed) = status {
                // nRF5 SDK 11 dfu_init_template.c, dfu_init_prevalidate and dfu_init_postvalidate.
                text += "; a Legacy bootloader refuses an init packet whose device type, device revision, application "
                    + "version or SoftDevice list (sd_req) does not fit the device, and an image whose CRC-16 does not match it"
            }
            if case .buttonless(.notBonded) = status { text += "; pair with the device first" }
            if case .smp(let error) = status { text += "; " + error.adviceClause }
            return text
        case .timeout(let step, let after):
            return "no answer from the device within \(after.dfuSeconds) while \(step); check that it is in range and still in DFU mode, or raise the timeout"
        case .disconnected(let step, let attempts):
            if step == .settingAdvertisingName {
                return "the device disconnected instead of accepting the bootloader name; its firmware may not support it, retry with --no-alt-name"
            }
            let lost = "the device disconnected while \(step) and could not be reconnected (\(attempts) attempt\(attempts == 1 ? "" : "s"))"
            return lost + (uploading ? "; move closer and retry, the upload resumes where it stopped" : "; move closer and retry")
        case .crcMismatch(let step, let object, let eo, let ro, let ec, let rc, let attempts):
            return "the checksum of the \(object) did not match after \(attempts) attempt\(attempts == 1 ? "" : "s") while \(step) (sent \(eo) bytes with CRC 0x\(ec.hex8), device reports \(ro) bytes with CRC 0x\(rc.hex8)); the link is losing data, retry with a lower --prn or a smaller packet size"
        case .unexpectedResponse(let step, let bytes):
            return "the device sent an unexpected notification while \(step) (\(bytes.hexDescription(upTo: 32))); it may not be a Nordic DFU target, or its GATT cache is stale"
        case .transport(_, .pairingFailed(let sentence)):
            // The sentence names the device, the cause and what to try; the link itself did not fail.
            return sentence
        case .transport(let step, let error):
            return "the Bluetooth link failed while \(step): \(error)"
        case .unsupportedDevice(let reason):
            return "the device does not offer DFU: \(reason)"
        case .deviceNotFound(let selector, let after):
            return "no device matching \(selector) was found within \(after.dfuSeconds); check that it is powered, in range and advertising, or raise --scan-timeout"
        case .bootloaderNotFound(let selector, let after):
            return "the bootloader (\(selector)) did not appear within \(after.dfuSeconds); give its address or name with --bootloader-address/--bootloader-name, or raise the scan timeout"
        case .protocolMismatch(let package, let device):
            return "the package is for \(package) DFU but the device runs a \(device) DFU bootloader; use a package built for it"
        case .firmwareMismatch(let reason):
            return "the firmware does not fit the device: \(reason)"
        case .invalidPart(let kind, let reason):
            return "the \(kind.rawValue) part cannot be sent: \(reason)"
        case .outOfRange(let field, let value, let allowed):
            return "the device sent \(field) \(value), outside \(allowed); it does not follow its protocol, so its update was stopped"
        case .offsetMovedBack(let image, let times):
            return "the device moved the upload offset of image \(image) back \(times) times; it does not keep what it receives, so its update was stopped"
        case .deadlineExceeded(let step, let after):
            return "the update did not finish within its deadline of \(after.dfuSeconds) (while \(step)); move the device closer or raise --deadline"
        case .aborted(let step):
            return "the update was cancelled while \(step); the device stays in its bootloader until it times out, run the update again to finish"
        }
    }
}

extension Duration {
    /// Seconds with up to three decimals, e.g. "10 s" or "0.4 s".
    var dfuSeconds: String {
        let millis = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        let whole = millis / 1000
        let fraction = millis % 1000
        if fraction == 0 { return "\(whole) s" }
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits) s"
    }
}

extension UInt32 {
    /// Eight lowercase hex digits.
    var hex8: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
