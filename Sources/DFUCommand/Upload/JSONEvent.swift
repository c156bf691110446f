/// One line of `dfu upload --json`: a JSON object whose `event` says which fields it has.
///
/// The schema is documented in docs/cli.md; field names are snake_case and
/// absent fields are omitted, never null.
struct JSONEvent: Encodable, Sendable, Hashable {
    /// `state`, `progress`, `log`, `error`, `done` or `summary`.
    var event: String
    /// The device as named on the command line (absent in `summary`).
    var device: String?
    /// `error`, `done`: the address of the device connected to (for a device named by its name).
    var address: String?
    /// The phase (`state`): connecting, entering_bootloader, starting, uploading, validating, disconnecting,
    /// completed, aborted; for SMP also marking_for_test, confirming, resetting, waiting_for_the_device_to_come_back,
    /// checking_the_images (the words of the human output).
    var state: String?
    /// The part being sent, from 1, and how many parts are sent.
    var part: Int?
    var parts: Int?
    /// Bytes of this part confirmed by the device, and the part's size.
    var bytes: Int?
    var total: Int?
    /// Bytes per second over the last two seconds or so, and over everything this run sent of the part
    /// (`done`: of the whole update); absent until two seconds of transfer could be measured.
    var speed: Int?
    var average: Int?
    /// Seconds since this device's update began.
    var elapsed: Double?
    /// `log`: `info` or `trace`.
    var level: String?
    /// `log`, `error`: the text.
    var message: String?
    /// `error`, `done`, `summary`: the exit code of this device (or of the run).
    var exitCode: Int32?
    /// `done`: `updated`, `uploaded` (SMP: sent and marked, not yet running confirmed), `failed` or `interrupted`.
    var result: String?
    /// `done` (updated): the parts sent and the parts the bootloader skipped.
    var partsSent: [String]?
    var partsSkipped: [String]?
    /// `done` (updated): seconds the update took.
    var seconds: Double?
    /// `done` (SMP): each image and where it stands, and the command that takes the device on from there (absent
    /// when nothing is left to do).
    var images: [JSONImage]?
    var next: String?
    /// `summary`: devices updated, devices uploaded (SMP, not yet running confirmed; absent when none), and devices
    /// that failed.
    var updated: Int?
    var uploaded: Int?
    var failed: [String]?

    enum CodingKeys: String, CodingKey {
        case event, device, address, state, part, parts, bytes, total, speed, average, elapsed, level, message
        case exitCode = "exit_code", result, partsSent = "parts_sent", partsSkipped = "parts_skipped"
        case seconds, updated, uploaded, failed, images, next
    }

    /// One image of an SMP upload in `done`: its number and its state (``SMPImageState``'s raw values).
    struct JSONImage: Encodable, Sendable, Hashable {
        var image: Int
        var state: String
    }

    init(_ event: String, device: String? = nil) {
        self.event = event
        self.device = device
    }
}
