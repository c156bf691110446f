import DFUCore
import Synchronization
import DFUFormats

/// The `-vv` trace of one link: ``TransportObservation/traceLine`` for every observation, except that SMP frames
/// are joined from their writes and notifications first (a frame longer than one ATT packet is split without
/// extra framing, zephyr `smp_transport.rst`) and each request and answer is decoded by name once whole, e.g.
/// "→ SMP: image upload off 4096, 2380 bytes (seq 9, 3 writes)". A piece of a frame prints nothing; a header
/// that is not SMP is shown in hex.
final class TransportTracer: Sendable {
    private struct Direction {
        var assembler = SMPFrameAssembler()
        var pieces = 0
    }

    private let state = Mutex((written: Direction(), notified: Direction()))

    /// A tracer with nothing buffered.
    init() {}

    /// The lines to print for `observation` (none while an SMP frame is incomplete).
    func lines(for observation: TransportObservation) -> [String] {
        switch observation {
        case .write(.smp, let bytes):
            return state.withLock { Self.frames(bytes, in: &$0.written) }.map { "→ \(DFUEndpoint.smp): " + $0 }
        case .notification(let notification) where notification.endpoint == .smp:
            return state.withLock { Self.frames(notification.bytes, in: &$0.notified) }.map { "← \(DFUEndpoint.smp): " + $0 }
        case .connected, .disconnected, .connectFailed:
            // A new link starts new frames (SMPFrameAssembler.reset after a disconnect).
            state.withLock { $0 = (Direction(), Direction()) }
            return [observation.traceLine]
        default:
            return [observation.traceLine]
        }
    }

    private static func frames(_ bytes: [UInt8], in direction: inout Direction) -> [String] {
        direction.pieces += 1
        let frames: [SMPFrame]
        do {
            frames = try direction.assembler.append(bytes)
        } catch {
            direction.pieces = 0
            return ["not an SMP frame: \(error) (\(bytes.hexDescription))"]
        }
        var lines: [String] = []
        for (index, frame) in frames.enumerated() {
            // Pieces count toward the first frame completed; a write holding several frames is one write each.
            let pieces = index == 0 ? direction.pieces : 1
            lines.append(describe(frame) + (pieces > 1 ? ", \(pieces) writes" : "") + ")")
        }
        if !frames.isEmpty { direction.pieces = direction.assembler.bufferedCount > 0 ? 1 : 0 }
        return lines
    }

    /// e.g. "image upload off 0, 2380 bytes (len 150000, sha) (seq 3" or
    /// "image upload answer: upload: off 2380 (seq 3"; the caller closes the parenthesis.
    private static func describe(_ frame: SMPFrame) -> String {
        let header = frame.header
        let tail = " (seq \(header.sequence)" + (header.version == .version2 ? "" : ", \(header.version)")
        switch header.operation {
        case .read, .write:
            if let request = try? SMPRequest(frame: frame) { return request.description + tail }
        case .readResponse, .writeResponse:
            let request: SMPOperation = header.operation == .readResponse ? .read : .write
            if let command = SMPCommand.allCases.first(where: {
                $0.group == header.group && $0.id == header.command && $0.operation == request
            }) ?? (header.group == .os && header.command == 0 ? .echo : nil),
                let response = try? SMPResponse(frame: frame, answering: command) {
                return "\(command) answer: \(response)" + tail
            }
        }
        return "\(header.operation) \(header.group)/\(header.command): "
            + ((try? frame.decodedBody()).map { "\($0)" } ?? "\(frame.body.count) undecodable bytes") + tail
    }
}
