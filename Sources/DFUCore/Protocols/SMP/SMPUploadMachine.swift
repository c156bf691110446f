internal import CBOR
import DFUFormats

/// The SMP (MCUmgr) image upload over one connection, as a pure state machine in the runner's
/// vocabulary (``DFUMachineEvent`` in, ``DFUMachineAction`` out), like the other protocols.
///
/// Each connection starts the same way and decides from the device's answers, so a new machine
/// after a lost link or after its own reset carries on where the device is:
///
/// 1. notifications on the SMP characteristic; the MCUmgr parameters (OS group, command 6;
///    `os_mgmt_mcumgr_params` in zephyr `subsys/mgmt/mcumgr/grp/os_mgmt/src/os_mgmt.c`), which size the
///    frames (buf_size) and the window (buf_count − 2, ``SMPUploadWindow/defaultSize(bufferCount:)``); a server without the command is assumed to
///    have ``SMPParameters/fallback``;
/// 2. the image list (before): for each image of the plan, whether it is still to be uploaded,
///    marked, swapped in by a reset, or confirmed (``SMPImageStatus``);
///    an image list unusual for the swap modes (no image group, or slot 1 running or confirmed) asks bootloader info's
///    mode, and MCUboot's firmware loader mode takes another path (`SMPUploadMachine+FirmwareLoader.swift`);
/// 3. before anything is written, whether the images fit: the slot info (image group, command 6;
///    `img_mgmt_slot_info` in zephyr `subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt.c`) names the device's images and
///    their slot sizes; a server without it (MGMT_ERR_ENOTSUP: Kconfig leaves `MCUMGR_GRP_IMG_SLOT_INFO` off for one
///    image, and Zephyr before 3.6 has none) is judged by its image list, whose entries name no `image` only in a
///    one-image build (`img_mgmt_state_encode_slot` in `img_mgmt_state.c`). An image the device has no slots for, or
///    one larger than its slot, fails the update before the first write
///    (``DFUError/firmwareMismatch(reason:)``): a one-image server ignores the upload's image number and would write
///    another image over its own secondary slot (`img_mgmt_get_unused_slot_area_id` in `zephyr_img_mgmt.c`);
/// 4. before the first upload, unless `--smp-chunk` fixed the frame size or buf_size fits one write, whether
///    the device joins a frame written in two pieces (``SMPReassemblyProbe``): Zephyr's default build does not
///    (``SMPFraming``), and then every frame is kept within one write;
/// 5. the uploads, one image after the other, with up to the window of chunk requests in flight
///    (``SMPUploadWindow``): sequence numbers match answers to requests (late and duplicated answers
///    are ignored), the server's `off` resumes or resynchronises, `match` false starts afresh,
///    and a timeout sends the chunks in flight again;
/// 6. the ending (``SMPEnding``): every image marked (test or confirm by its hash; the answer is the
///    image list), then one reset for all of them (`.finish(.restart)`: the runner reconnects and
///    runs a new machine, which finds the images running and confirms them after a test);
/// 7. the image list again (after), which must show the swap.
///
/// Requests and notifications are frames split across writes and notifications by the
/// characteristic's write length and joined by ``SMPFrameAssembler`` (zephyr `smp_transport.rst`).
/// Errors from the device end the upload with ``DFUError/remote(step:request:status:)`` and
/// ``DFURemoteStatus/smp(_:)``. SMP has no abort: a cancelled upload stops where it is, and the
/// next run resumes from the device's offset.
public struct SMPUploadMachine: Sendable {
    /// Counters of one connection, for reports and the benchmark.
    public struct Statistics: Sendable, Hashable {
        /// SMP requests sent (every chunk, retransmissions included, and every other command).
        public var requests = 0
        /// Upload chunks sent again after a timeout or a resynchronisation.
        public var retransmissions = 0
        /// The most upload requests in flight at once.
        public var maxInFlight = 0
        /// Answers ignored (late, duplicated, or to a stale request).
        public var ignoredAnswers = 0
    }

    enum Phase: Sendable, Hashable {
        case enablingNotifications
        case readingParameters
        case readingImagesBefore
        /// Bootloader info's mode, asked when the image list suggests MCUboot's firmware loader mode.
        case readingBootloaderMode
        /// The reset with `boot_mode` 1 that starts the firmware loader.
        case enteringLoader
        /// The firmware loader's image list after the upload.
        case checkingLoaderSlot
        case readingSlotInfo
        case probingReassembly(Int)
        /// The probe's first write was answered MGMT_ERR_ECORRUPT; the server still holds its second (the decoy) in a
        /// buffer until it has answered that too.
        case awaitingDecoyAnswer(Int)
        case uploading(Int)
        case marking(Int)
        case resetting
        case confirming(Int)
        case readingImagesAfter
        case finished
    }

    /// The request awaiting its answer (outside uploads).
    struct Pending: Sendable, Hashable {
        var sequence: UInt8
        var request: SMPRequest
        var attempts: Int
    }

    /// Where the machine is.
    public internal(set) var step: DFUStep = .enablingNotifications
    /// The device's MCUmgr parameters (or the fallback), once read.
    public internal(set) var parameters: SMPParameters?
    /// The image list read before anything was changed.
    public internal(set) var imagesBefore: [SMPImageSlotState]?
    /// The slot info read before the first upload (nil: not read, or the device has no slot info command).
    public internal(set) var slotInfo: [SMPSlotInfo]?
    /// The image list read at the end.
    public internal(set) var imagesAfter: [SMPImageSlotState]?
    /// The bootloader info, when it was asked (``SMPUploadMachine`` asks it only for an unusual image list).
    public internal(set) var bootloaderInfo: SMPBootloaderInfo?
    /// Counters.
    public internal(set) var statistics = Statistics()
    /// How upload frames are sized over the writes, once the first upload starts.
    public internal(set) var framing: SMPFraming?

    let plan: SMPUploadPlan
    let responseTimeout: Duration
    let writeLength: Int
    let reconnectAttempts: Int
    let afterReset: Bool
    /// Whether an earlier machine reset the device into its firmware loader.
    let enteredFirmwareLoader: Bool
    /// Whether only a firmware loader may be written to (the device was found at a fallback address).
    let requiresFirmwareLoader: Bool
    /// Which side of a firmware loader device this is (nil: not such a device, or not known yet).
    var loaderRole: FirmwareLoaderRole?
    var phase = Phase.enablingNotifications
    var queue: [DFUMachineAction] = []
    var assembler = SMPFrameAssembler()
    var sequence: UInt8 = 0
    var pending: Pending?
    var window: SMPUploadWindow?
    var stalls = 0
    /// Times the device moved the current image's upload offset back to one it had already taken.
    var offsetMovedBack = 0
    /// How often an image's upload offset may move back before the device's update fails.
    public static let offsetMovesBackAllowed = 4
    var statuses: [SMPImageStatus] = []
    /// For each image of the plan, whether its mark is permanent (confirmed in the secondary slot) rather than a test.
    var permanent: [Bool] = []
    /// Whether this machine asked the device to reset (and it answered or dropped the link).
    var resetRequested = false
    /// Whether the image list read before entries without an `image` number (a one-image build writes none).
    var listIsOneImageBuild = false
    var transferReported = false
    var cancelled = false
    /// Whether the device joins a frame from several writes (the plan's word, or what the probe found), nil
    /// until known.
    var reassembly: SMPFraming.Basis?
    var probe: SMPReassemblyProbe?
    /// SMP version 2 until the device answers MGMT_ERR_UNSUPPORTED_TOO_NEW (zephyr `smp.c` checks the
    /// header's version; `tests/subsys/mgmt/mcumgr/smp_version`), then version 1.
    var version = SMPVersion.version2

    /// A machine for `plan` over the connection described by `setup` (its options' response timeout and
    /// reconnection attempts, the peer's write length, and whether earlier machines for this upload reset
    /// the device: `restarts` > 0).
    private init(_ setup: DFUMachineSetup, plan: SMPUploadPlan) {
        self.plan = plan
        responseTimeout = setup.options.responseTimeout
        writeLength = max(20, setup.peer.maximumWriteLength)
        reconnectAttempts = setup.options.reconnectAttempts
        afterReset = setup.restarts > 0
        enteredFirmwareLoader = setup.enteredFirmwareLoader
        requiresFirmwareLoader = setup.requiresFirmwareLoader
        reassembly = plan.deviceReassembles.map { .known($0) }
    }

    /// Takes one event and returns the next action.
    public mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction {
        if cancelled { return queue.isEmpty ? .fail(.aborted(step: step)) : queue.removeFirst() }
        switch event {
        case .start:
            phase = .enablingNotifications
            step = .enablingNotifications
            return .enableNotifications(on: .smp)
        case .written, .reported, .delayElapsed:
            if !queue.isEmpty { return queue.removeFirst() }
            if phase == .enablingNotifications { return send(.parameters, phase: .readingParameters) }
            return .awaitNotification(from: .smp, within: responseTimeout)
        case .notified(let bytes):
            return notified(bytes)
        case .timedOut:
            return timedOut()
        case .disconnected:
            queue.removeAll()
            assembler.reset()
            if phase == .enteringLoader {
                // The application reset before its answer got out (a build without threads resets at once).
                return .finish(.jumped(bootloaderName: nil))
            }
            if phase == .resetting {
                // The device reset before its answer got out: what the reset was for is done.
                resetRequested = true
                return sequenced([.report(.smpImages(imageReports)), .finish(.restart)])
            }
            return .finish(.reconnect(.disconnected(step: step, attempts: reconnectAttempts)))
        case .cancelled:
            // SMP has no abort request: stop here; the device keeps what it received, and the next
            // run resumes from its offset (the upload's `sha` names the file).
            cancelled = true
            queue = []
            return .report(.progress(.aborted, bytes: bytesOnDevice))
        }
    }

    // MARK: - Requests outside the upload

    /// Sends `request` with the next sequence number and waits for its answer in `phase`.
    mutating func send(_ request: SMPRequest, phase: Phase, attempts: Int = 0) -> DFUMachineAction {
        self.phase = phase
        step = .smp(request.command)
        sequence &+= 1
        pending = Pending(sequence: sequence, request: request, attempts: attempts)
        return write(request, sequence: sequence)
    }

    /// The request's frame as writes of at most the write length.
    mutating func write(_ request: SMPRequest, sequence: UInt8) -> DFUMachineAction {
        statistics.requests += 1
        let bytes: [UInt8]
        do {
            bytes = try request.frame(sequence: sequence, version: version).bytes
        } catch {
            return .fail(.invalidPart(.application, reason: "its SMP request could not be encoded: \(error)"))
        }
        if case .probingReassembly = phase, let probe {
            return .write(probe.writes(of: bytes), to: .smp, type: .withoutResponse)
        }
        return .write(split(bytes), to: .smp, type: .withoutResponse)
    }

    func split(_ bytes: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: writeLength).map { Array(bytes[$0..<min($0 + writeLength, bytes.count)]) }
    }

    mutating func notified(_ bytes: [UInt8]) -> DFUMachineAction {
        let frames: [SMPFrame]
        do {
            frames = try assembler.append(bytes)
        } catch {
            // Bytes that do not start a frame: nothing can be matched; keep waiting (a timeout resends).
            return .awaitNotification(from: .smp, within: responseTimeout)
        }
        if case .awaitingDecoyAnswer(let index) = phase, !frames.isEmpty {
            // The decoy is answered (any frame now is its answer: the server works in order): its buffer is on its way
            // back to the pool, and a full window fits.
            statistics.ignoredAnswers += frames.count
            return startUpload(index)
        }
        if case .uploading = phase {
            // Every answer in these frames moves the window; then one write refills it.
            var reports: [DFUMachineAction] = []
            var moved = false
            for frame in frames {
                switch uploadAnswered(frame, reports: &reports) {
                case .ignored: continue
                case .moved: moved = true
                case .finished(let action): return action
                }
            }
            guard moved else { return .awaitNotification(from: .smp, within: responseTimeout) }
            if case .uploading(let index) = phase, let window {
                reports.append(.report(.smpPart(index: index, bytes: window.acknowledged)))
            }
            reports.append(.report(.progress(.uploading, bytes: bytesOnDevice)))
            return sequenced(reports + [fillWindow()])
        }
        for frame in frames {
            guard let pending, frame.header.sequence == pending.sequence,
                  pending.request.command.isAnswered(by: frame.header)
            else {
                statistics.ignoredAnswers += 1
                continue
            }
            self.pending = nil
            stalls = 0
            let response: SMPResponse
            do {
                response = try SMPResponse(frame: frame, answering: pending.request.command)
            } catch {
                return .fail(error.dfuError(step: step, frame: frame))
            }
            return answered(response, to: pending.request, frame: frame)
        }
        return .awaitNotification(from: .smp, within: responseTimeout)
    }

    mutating func answered(_ response: SMPResponse, to request: SMPRequest, frame: SMPFrame) -> DFUMachineAction {
        switch (phase, response) {
        case (_, .failure(.management(.versionTooNew, _))) where version == .version2:
            // A server that speaks only SMP version 1: the same request again, in version 1.
            version = .version1
            return send(request, phase: phase)
        case (.readingParameters, .parameters(let parameters)):
            self.parameters = parameters
            return send(.imageState, phase: .readingImagesBefore)
        case (.readingParameters, .failure):
            // Servers without CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS answer MGMT_ERR_ENOTSUP.
            parameters = .fallback
            return send(.imageState, phase: .readingImagesBefore)
        case (.readingImagesBefore, .imageState(let list)):
            listIsOneImageBuild = Self.listsNoImageNumbers(frame)
            if asksBootloaderMode(list) { return readBootloaderMode(list: list) }
            if requiresFirmwareLoader { return .fail(.unsupportedDevice(reason: Self.notAFirmwareLoader)) }
            return imagesRead(list)
        case (.readingImagesBefore, .failure(.management(.notSupported, _))) where asksBootloaderMode(nil):
            // No image group: an application in MCUboot's firmware loader mode, or a server that cannot take images.
            return readBootloaderMode(list: nil)
        case (.readingBootloaderMode, .bootloaderInfo(let info)):
            return bootloaderModeRead(info)
        case (.readingBootloaderMode, .failure):
            // MGMT_ERR_ENOTSUP (no command 8), or the query answered no mode (OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER).
            return bootloaderModeRead(nil)
        case (.enteringLoader, .reset):
            return .finish(.jumped(bootloaderName: nil))
        case (.checkingLoaderSlot, .imageState(let list)):
            return loaderSlotChecked(list)
        case (.readingSlotInfo, .slotInfo(let info)) where info.isEmpty:
            // No image at all says nothing a server could mean: judge by the image list.
            return afterSlotInfoUnavailable()
        case (.readingSlotInfo, .slotInfo(let info)):
            slotInfo = info
            if let reason = misfit(slotInfo: info) { return .fail(.firmwareMismatch(reason: reason)) }
            return nextStep()
        case (.readingSlotInfo, .failure):
            // MGMT_ERR_ENOTSUP: no slot info command; the image list tells which images there are.
            return afterSlotInfoUnavailable()
        case (.probingReassembly(let index), _):
            let yes = probe?.reassembles(given: response) ?? false
            reassembly = yes ? .reassembles : .doesNotReassemble
            if !yes, case .failure(.management(.corrupt, _)) = response {
                // The decoy, taken as a frame of its own, holds one of the server's buffers until it is answered
                // (MGMT_ERR_ECORRUPT too): a window sent now could find no buffer for its last request, which is then
                // lost without a word (conformance-mcuboot.md, Z3). Wait for that answer first.
                phase = .awaitingDecoyAnswer(index)
                return .awaitNotification(from: .smp, within: responseTimeout)
            }
            return startUpload(index)
        case (.marking(let index), .imageState):
            statuses[index] = .pending
            if index < permanent.count { permanent[index] = plan.ending.confirmsAtOnce }
            return nextStep()
        case (.confirming(let index), .imageState):
            statuses[index] = .done
            return nextStep()
        case (.resetting, .reset):
            resetRequested = true
            return sequenced([.report(.smpImages(imageReports)), .finish(.restart)])
        case (.readingImagesAfter, .imageState(let list)):
            imagesAfter = list
            return verifyAfter(list)
        case (_, .failure(let error)):
            return .fail(.remote(step: step, request: request.description, status: .smp(error)))
        default:
            return .fail(.unexpectedResponse(step: step, bytes: frame.bytes))
        }
    }

    /// The image list read first, of a device that is not in MCUboot's firmware loader mode: where each image
    /// stands, and the first step.
    mutating func imagesRead(_ list: [SMPImageSlotState]) -> DFUMachineAction {
        imagesBefore = list
        statuses = plan.images.map { SMPImageStatus.of($0, in: list, afterReset: afterReset) }
        permanent = plan.images.map { image in
            list.contains { $0.image == image.image && $0.hash == image.imageHash && $0.pending && $0.permanent }
        }
        if let index = statuses.firstIndex(of: .notRunning) { return notRunning(index) }
        // Before the first write: do the images fit?
        if statuses.contains(.needsUpload) { return send(.slotInfo, phase: .readingSlotInfo) }
        return nextStep()
    }

    /// What is left, in order: uploads, marks, the reset, confirmations, the final image list.
    /// Each step is preceded by where the images stand and by the phase it begins.
    mutating func nextStep() -> DFUMachineAction {
        if loaderRole == .loader { return nextLoaderStep() }
        let images = DFUMachineAction.report(.smpImages(imageReports))
        if let index = statuses.firstIndex(of: .needsUpload) {
            let upload = startUpload(index)
            return leading([images, .report(.smpPart(index: index, bytes: 0))], upload)
        }
        if let index = nextToMark() {
            let hash = plan.images[index].imageHash
            let confirm = plan.ending.confirmsAtOnce
            let request = send(confirm ? .confirm(hash: hash) : .test(hash: hash), phase: .marking(index))
            return leading([images, .report(.progress(confirm ? .confirming : .markingForTest, bytes: bytesOnDevice))], request)
        }
        if plan.ending.resets, statuses.contains(.pending) {
            let request = send(.reset, phase: .resetting)
            return leading([images, .report(.progress(.resetting, bytes: bytesOnDevice))], request)
        }
        if plan.ending != .testWithoutReset, let index = statuses.firstIndex(of: .needsConfirm) {
            let request = send(.confirm(hash: plan.images[index].imageHash), phase: .confirming(index))
            return leading([images, .report(.progress(.confirming, bytes: bytesOnDevice))], request)
        }
        let request = send(.imageState, phase: .readingImagesAfter)
        return leading([images, .report(.progress(.checkingImages, bytes: bytesOnDevice))], request)
    }

    /// Where each image of the plan stands, as far as this machine knows.
    public var imageReports: [SMPImageReport] {
        plan.images.indices.map { index in
            let status = index < statuses.count ? statuses[index] : .needsUpload
            let permanent = index < self.permanent.count && self.permanent[index]
            let state: SMPImageState = switch status {
            case .needsUpload: .notUploaded
            case .needsMark where loaderRole == .loader, .pending where loaderRole == .loader: .writtenByLoader
            // Not running after the reset: MCUboot refused or reverted it, and it is back in the secondary slot.
            case .needsMark, .notRunning: .uploaded
            case .pending where resetRequested: permanent ? .resetConfirm : .resetTest
            case .pending: permanent ? .markedConfirm : .markedTest
            case .needsConfirm: .runningTest
            case .done: .confirmed
            }
            return SMPImageReport(image: plan.images[index].image, state: state)
        }
    }

    /// The next image to mark for test or confirm: every other image before image 0. On an nRF5340, MCUboot skips
    /// the network core (image 1) update when the application core image was marked first (Nordic known issue
    /// NCSDK-34106, nRF Connect SDK 2.6.0–3.4.0; sdk-nrf PR #30274), so the application core is marked last.
    func nextToMark() -> Int? {
        let waiting = statuses.indices.filter { statuses[$0] == .needsMark }
        return waiting.first { plan.images[$0].image != 0 } ?? waiting.first
    }

    /// The final image list must show every image where the ending puts it.
    mutating func verifyAfter(_ list: [SMPImageSlotState]) -> DFUMachineAction {
        for (index, image) in plan.images.enumerated() {
            let status = SMPImageStatus.of(image, in: list, afterReset: afterReset)
            let expected: Set<SMPImageStatus> = plan.ending.resets ? [.done] : [.pending, .done]
            if !expected.contains(status) {
                if plan.ending.resets { return notRunning(index) }
                return .fail(.remote(step: step, request: "the image list after marking",
                                     status: .smpImage(.notMarked(image: image.image))))
            }
        }
        phase = .finished
        return .finish(.completed)
    }
}

extension SMPUploadMachine: DFUProtocolMachine {
    /// A machine for the setup's plan (``DFUMachineSetup/Work/uploadImages(_:)``).
    public init(_ setup: DFUMachineSetup) {
        guard case .uploadImages(let plan) = setup.work else {
            preconditionFailure("an SMP upload machine was made for \(setup.work), not images to upload")
        }
        self.init(setup, plan: plan)
    }
}
