import DFUCore
import DFUCrypto
import DFUSimStandIn
import DFUSimulator

/// The `--device` keys of the SMP kinds (`smp`, `smp-auth`, `smp-nrf5340`): the Kconfig options of Zephyr's SMP
/// server and MCUboot that ``ZephyrTargetConfiguration`` models, and its faults.
///
/// Keys: `buf_size` (`MCUMGR_TRANSPORT_NETBUF_SIZE`), `buf_count` (`MCUMGR_TRANSPORT_NETBUF_COUNT`),
/// `reassembly=yes|no` (`MCUMGR_TRANSPORT_BT_REASSEMBLY`), `erase_progressively=yes|no`
/// (`IMG_ERASE_PROGRESSIVELY`), `image_check=yes|no` (`IMG_ENABLE_IMAGE_CHECK`), `mcumgr_params=yes|no`
/// (`MCUMGR_GRP_OS_MCUMGR_PARAMS`), `slot_info=yes|no` (`MCUMGR_GRP_IMG_SLOT_INFO`; default: yes for `smp-nrf5340`, no
/// for one image, as Kconfig), `reset_ms` (`MCUMGR_GRP_OS_RESET_MS`), `slot_size` (image 0's slots, bytes),
/// `page_size`, `version=MAJOR.MINOR.REVISION[.BUILD]` (the images it runs at first), `public_key=FILE` (the key
/// MCUboot verifies signatures with: ECDSA P-256, Ed25519 or RSA, PEM), and the faults `duplicate_response=N[:M…]`,
/// `unanswered_response=N[:M…]` (answers counted from 1 over the device's life) and `reset_after_upload_bytes=N`, the
/// hostile faults `report_buf_size=N`, `report_buf_count=N`, `lying_offset=yes|no` and `flood=N`;
/// and how it pairs (``DevicePairing``): `security=none|encrypted|authenticated` (`smp-auth`: authenticated),
/// `io=DisplayOnly|DisplayYesNo|KeyboardOnly|NoInputNoOutput|KeyboardDisplay` (default DisplayOnly), `passkey=N`
/// (the passkey it shows, default 123456), `weak_pairing=bond|disconnect` (``DevicePairing/dropsWeakPairing``);
/// `bootloader_info=yes|no` (`MCUMGR_GRP_OS_BOOTLOADER_INFO`: OS command 8; default yes for the firmware loader kinds,
/// no otherwise). The firmware loader kinds (`smp-loader`, `smp-loader-bm`) also take ``FirmwareLoaderConfiguration``'s
/// keys: `loader_name`, `loader_address=same|inverted`, `boot_mode=yes|no` (`MCUMGR_GRP_OS_RESET_BOOT_MODE`),
/// `app_images=yes|no` (the application has an image group), `loader_without_app=yes|no`
/// (`BOOT_FIRMWARE_LOADER_NO_APPLICATION`) and the fault `loader_silent=yes|no`.
extension SimulatedDeviceSpec {
    static func zephyrConfiguration(kind: SimulatedDeviceKind, name: String?, fields: inout SpecFields)
        throws(StandInSpecError) -> (ZephyrTargetConfiguration, DevicePairing)
    {
        var configuration = kind == .smpNRF5340 ? ZephyrTargetConfiguration.nrf5340 : ZephyrTargetConfiguration()
        let pairing = try pairingFields(kind: kind, fields: &fields)
        configuration.requiresEncryption = pairing.security != .none
        if kind.hasFirmwareLoader {
            configuration.firmwareLoader = try firmwareLoaderFields(kind: kind, fields: &fields)
            // The Bare Metal option's entry sample application (`CONFIG_SAMPLE_BLE_DEVICE_NAME`).
            if kind == .smpLoaderBareMetal { configuration.name = "nRF_BM_Entry" }
        }
        if let on = try fields.takeFlag("bootloader_info") { configuration.bootloaderInfo = on }
        if let name { configuration.name = name }
        if let size = try fields.takeInteger("buf_size") {
            // An SMP header (8 bytes) and a little CBOR must fit; Zephyr's Kconfig range ends at 65535.
            guard (64...65_535).contains(size) else { throw StandInSpecError("buf_size=\(size) must be 64 to 65535") }
            configuration.bufferSize = size
        }
        if let count = try fields.takeInteger("buf_count") {
            // One buffer holds the request in work and one its answer (`smp_process_request_packet`).
            guard (2...64).contains(count) else { throw StandInSpecError("buf_count=\(count) must be 2 to 64") }
            configuration.bufferCount = count
        }
        if let on = try fields.takeFlag("reassembly") { configuration.reassembly = on }
        if let on = try fields.takeFlag("erase_progressively") { configuration.eraseProgressively = on }
        if let on = try fields.takeFlag("image_check") { configuration.imageCheck = on }
        if let on = try fields.takeFlag("mcumgr_params") { configuration.answersParameters = on }
        if let on = try fields.takeFlag("slot_info") { configuration.slotInfo = on }
        if let milliseconds = try fields.takeInteger("reset_ms") {
            guard (0...60_000).contains(milliseconds) else {
                throw StandInSpecError("reset_ms=\(milliseconds) must be 0 to 60000")
            }
            configuration.resetDelay = .milliseconds(milliseconds)
        }
        if let page = try fields.takeInteger("page_size") {
            guard page >= 256, page <= 1 << 20, page & (page - 1) == 0 else {
                throw StandInSpecError("page_size=\(page) must be a power of two from 256 to 1048576")
            }
            configuration.pageSize = page
        }
        if let size = try fields.takeInteger("slot_size") {
            guard size >= 4096, size <= 1 << 26 else { throw StandInSpecError("slot_size=\(size) must be 4096 to 67108864") }
            configuration.images[0].slotSize = size
        }
        if let text = fields.take("version") {
            guard let version = Self.imageVersion(text) else {
                throw StandInSpecError("version=\(text) must be MAJOR.MINOR.REVISION or MAJOR.MINOR.REVISION.BUILD")
            }
            for index in configuration.images.indices { configuration.images[index].initialVersion = version }
        }
        if let path = fields.take("public_key") {
            let bytes = try pemFile(at: path)
            do {
                configuration.verifyingKey = try VerifyingKey(pem: bytes)
            } catch {
                throw StandInSpecError("public_key=\(path) is not a key MCUboot verifies with (\(error.description))")
            }
        }
        try takeFaults(&fields, into: &configuration)
        return (configuration, pairing)
    }

    /// The firmware loader's keys: `loader_name`, `loader_address`, `boot_mode`, `app_images`, `loader_without_app`,
    /// `loader_silent`.
    private static func firmwareLoaderFields(kind: SimulatedDeviceKind, fields: inout SpecFields) throws(StandInSpecError)
        -> FirmwareLoaderConfiguration
    {
        var loader = kind == .smpLoaderBareMetal ? FirmwareLoaderConfiguration.bareMetal : FirmwareLoaderConfiguration()
        if let name = fields.take("loader_name") {
            guard !name.isEmpty, name.utf8.count <= 29 else { throw StandInSpecError("loader_name=\(name) must be 1 to 29 bytes") }
            loader.name = name
        }
        if let text = fields.take("loader_address") {
            switch text.lowercased() {
            case "same": loader.address = .same
            case "inverted": loader.address = .lowestBitInverted
            default: throw StandInSpecError("loader_address=\(text) must be same or inverted")
            }
        }
        if let on = try fields.takeFlag("boot_mode") { loader.resetTakesBootMode = on }
        if let on = try fields.takeFlag("app_images") { loader.applicationListsImages = on }
        if let on = try fields.takeFlag("loader_without_app") { loader.startsLoaderWithoutApplication = on }
        if let on = try fields.takeFlag("loader_silent") { loader.loaderNeverAdvertises = on }
        return loader
    }

    /// How the device pairs: `security`, `io`, `passkey`, `weak_pairing`.
    private static func pairingFields(kind: SimulatedDeviceKind, fields: inout SpecFields) throws(StandInSpecError)
        -> DevicePairing
    {
        var pairing = DevicePairing()
        pairing.security = kind == .smpAuth ? .authenticated : .none
        if let text = fields.take("security") {
            guard let security = DevicePairing.Security(rawValue: text.lowercased()) else {
                throw StandInSpecError("security=\(text) must be none, encrypted or authenticated")
            }
            pairing.security = security
        }
        if let text = fields.take("io") {
            guard let capability = PairingMethod.Capability(spec: text) else {
                throw StandInSpecError(
                    "io=\(text) must be one of "
                        + PairingMethod.Capability.allCases.map(\.rawValue).joined(separator: ", "))
            }
            pairing.capability = capability
        }
        if let passkey = try fields.takeInteger("passkey") {
            guard (0...999_999).contains(passkey) else { throw StandInSpecError("passkey=\(passkey) must be 0 to 999999") }
            pairing.passkey = UInt32(passkey)
        }
        if let text = fields.take("weak_pairing") {
            switch text.lowercased() {
            case "bond": pairing.dropsWeakPairing = false
            case "disconnect": pairing.dropsWeakPairing = true
            default: throw StandInSpecError("weak_pairing=\(text) must be bond or disconnect")
            }
        }
        return pairing
    }

    /// The faults: `duplicate_response`, `unanswered_response`, the hostile ones, `reset_after_upload_bytes`.
    private static func takeFaults(_ fields: inout SpecFields, into configuration: inout ZephyrTargetConfiguration)
        throws(StandInSpecError)
    {
        if let text = fields.take("duplicate_response") {
            configuration.duplicatedResponses = try Self.counts(text, key: "duplicate_response")
        }
        if let text = fields.take("unanswered_response") {
            configuration.unansweredResponses = try Self.counts(text, key: "unanswered_response")
        }
        // Hostile faults (docs/conformance-mcuboot.md, "Hostile faults"): not modelled on any real device.
        if let size = try fields.takeInteger("report_buf_size") { configuration.reportedBufferSize = size }
        if let count = try fields.takeInteger("report_buf_count") { configuration.reportedBufferCount = count }
        if let on = try fields.takeFlag("lying_offset") { configuration.lyingOffset = on }
        if let count = try fields.takeInteger("flood") {
            guard (0...1000).contains(count) else { throw StandInSpecError("flood=\(count) must be 0 to 1000") }
            configuration.floodPerAnswer = count
        }
        if let bytes = try fields.takeInteger("reset_after_upload_bytes") {
            guard bytes > 0 else { throw StandInSpecError("reset_after_upload_bytes=\(bytes) must be positive") }
            configuration.resetAfterUploadBytes = bytes
        }
    }

    /// `1.2.3` or `1.2.3.4` as an MCUboot version (u8, u8, u16, u32).
    static func imageVersion(_ text: String) -> (major: UInt8, minor: UInt8, revision: UInt16, build: UInt32)? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4, let major = UInt8(parts[0]), let minor = UInt8(parts[1]),
            let revision = UInt16(parts[2])
        else { return nil }
        guard parts.count == 4 else { return (major, minor, revision, 0) }
        guard let build = UInt32(parts[3]) else { return nil }
        return (major, minor, revision, build)
    }

    /// `N[:M…]`, each a positive count.
    private static func counts(_ text: String, key: String) throws(StandInSpecError) -> Set<Int> {
        var result: Set<Int> = []
        for part in text.split(separator: ":", omittingEmptySubsequences: false) {
            guard let value = SpecFields.integer(String(part)), value > 0 else {
                throw StandInSpecError("\(key)=\(text): '\(part)' is not a positive number")
            }
            result.insert(value)
        }
        return result
    }
}
