import CBOR
import DFUCore
import DFUCrypto
import DFUSimulator
import Foundation
import DFUFormats

/// Drives a ``SimulatedZephyrTarget`` directly, frame by frame, in virtual time: writes split at the ATT
/// payload, answers joined from its notifications, resets run through MCUboot.
struct ZephyrTargetHarness {
    var target: SimulatedZephyrTarget
    var now: Duration = .zero
    var isBonded = false
    /// ATT MTU 498 − 3.
    var attPayload = 495
    /// How long after a notification is queued the target learns it was received (zero: at once).
    var acknowledgement: Duration = .zero
    var flash = FlashTimings()
    private var sequence: UInt8 = 0
    /// Every notification so far (bytes, when it is sent).
    private(set) var notifications: [(bytes: [UInt8], at: Duration)] = []
    /// ATT errors the writes got.
    private(set) var attErrors: [UInt8] = []
    /// Resets so far.
    private(set) var resets = 0

    static let characteristic = DFUServiceUUIDs().smpCharacteristic.uppercased()

    init(_ configuration: ZephyrTargetConfiguration = ZephyrTargetConfiguration()) {
        target = SimulatedZephyrTarget(configuration: configuration)
    }

    /// Writes raw bytes (one ATT write each) at the current time; returns the notifications they caused.
    @discardableResult
    mutating func write(_ writes: [[UInt8]], type: SimulatedWriteType = .command) -> [(bytes: [UInt8], at: Duration)] {
        var caused: [(bytes: [UInt8], at: Duration)] = []
        for bytes in writes {
            var context = SimulatedContext(now: now, subscribed: [Self.characteristic], isBonded: isBonded,
                                           storage: SimulatedStorage(), flash: flash)
            context.notificationLength = attPayload
            let acknowledgement = acknowledgement
            context.notificationAcknowledged = { $0 + acknowledgement }
            if let error = target.write(bytes, to: Self.characteristic, type: type, context: &context) {
                attErrors.append(error.code)
            }
            for effect in context.effects {
                switch effect {
                case .notify(_, let bytes, let delay):
                    caused.append((bytes, now + delay))
                case .reboot(_, let delay):
                    var dropped = context
                    target.connectionDropped(context: &dropped)
                    target = target.afterReset(flash: flash).target
                    resets += 1
                    now += delay
                }
            }
        }
        notifications += caused
        return caused
    }

    /// The frame of `request`, split into ATT writes.
    mutating func writes(for request: SMPRequest, version: SMPVersion = .version2) throws -> [[UInt8]] {
        sequence &+= 1
        return split(try request.frame(sequence: sequence, version: version).bytes)
    }

    func split(_ bytes: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: attPayload).map { Array(bytes[$0..<min(bytes.count, $0 + attPayload)]) }
    }

    /// Sends `request` and decodes its one answer; the clock moves to when the answer is sent.
    mutating func send(_ request: SMPRequest, version: SMPVersion = .version2) throws -> SMPResponse {
        let frames = try answers(to: try writes(for: request, version: version))
        guard frames.count == 1, let frame = frames.first else { throw HarnessError.answers(frames.count) }
        return try SMPResponse(frame: frame, answering: request.command)
    }

    /// Writes and returns the answer frames, moving the clock to the last one.
    mutating func answers(to writes: [[UInt8]]) throws -> [SMPFrame] {
        let caused = write(writes)
        var assembler = SMPFrameAssembler()
        var frames: [SMPFrame] = []
        for (bytes, _) in caused { frames += try assembler.append(bytes) }
        if let last = caused.map(\.at).max() { now = max(now, last) }
        return frames
    }

    /// Uploads `image` in chunks that fill buf_size, one request at a time; returns the last answer.
    mutating func upload(_ image: [UInt8], imageIndex: Int? = nil, sha: [UInt8]? = nil, stopAfter: Int? = nil) throws -> SMPResponse {
        let sha = sha ?? SHA256.digest(image)
        var offset = 0
        var last = SMPResponse.upload(offset: 0, match: nil)
        repeat {
            var chunk = SMPUploadChunk(offset: offset, data: [])
            if offset == 0 {
                chunk = SMPUploadChunk(image: imageIndex, length: image.count, offset: 0, sha: sha, data: [])
            }
            let room = chunk.maxDataLength(frameLimit: target.configuration.bufferSize)
            chunk.data = Array(image[offset..<min(image.count, offset + room)])
            last = try send(.upload(chunk))
            guard case .upload(let next?, _) = last else { return last }
            offset = next
            if let stopAfter, offset >= stopAfter { return last }
        } while offset < image.count
        return last
    }

    /// The image list.
    mutating func state() throws -> [SMPImageSlotState] {
        guard case .imageState(let images) = try send(.imageState) else { throw HarnessError.notAState }
        return images
    }

    /// Runs a reset request to its end (the answer, then MCUboot).
    mutating func reset() throws {
        _ = try send(.reset)
    }

    enum HarnessError: Error, Equatable { case answers(Int), notAState }
}

/// The imgtool-made images of `Tests/Fixtures/mcuboot`.
enum MCUbootImages {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/mcuboot")

    static var isPresent: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("expected.tsv").path) }

    static func image(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: root.appendingPathComponent("images/\(name)")))
    }

    static func key(_ name: String) throws -> VerifyingKey {
        try VerifyingKey(pem: [UInt8](Data(contentsOf: root.appendingPathComponent("keys/\(name).pub.pem"))))
    }
}

/// Hash-only images of a given version.
func zephyrImage(_ major: UInt8, _ minor: UInt8 = 0, body: Int = 20_000, seed: UInt8 = 1) -> [UInt8] {
    SimulatedMCUbootImageBuilder(version: (major, minor, 0, 0)).image(bodySize: body, seed: seed)
}

/// The SHA256 TLV of an image.
func tlvHash(_ image: [UInt8]) -> [UInt8]? { (try? MCUbootImage(bytes: image, name: "image"))?.imageHash }
