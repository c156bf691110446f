public import DFUCore
import Synchronization

/// A ``DFUTransport`` that passes everything to `base` and watches the SMP frames on the way: when the first
/// upload request started to go out and the last upload answer came in, how many upload requests were in
/// flight at most, and how many chunks were sent more than once. It measures from the wire what the
/// runner and its machine did, without asking them.
public struct SMPWireObserver<Base: DFUTransport>: DFUTransport {
    /// What was seen.
    public struct Figures: Sendable {
        /// Successful connections.
        public var connections = 0
        /// When the first write of the first upload request went out, on `now`'s clock.
        public var firstUpload: Duration?
        /// When the last notification of the last upload answer came in.
        public var lastUploadAnswer: Duration?
        /// The most upload requests written and not yet answered at once.
        public var maxInFlight = 0
        /// Upload chunks (image, offset) written again after a first time.
        public var retransmissions = 0
    }

    private struct State {
        var figures = Figures()
        var written = SMPFrameAssembler()
        var heard = SMPFrameAssembler()
        var frameStart = Duration.zero
        var inFlight: Set<UInt8> = []
        var sent: Set<[Int]> = []
        /// Only a chunk at offset 0 names its image; later ones belong to the last one named.
        var image = 0
    }

    /// The transport watched.
    public let base: Base
    private let now: @Sendable () -> Duration
    private let state = SharedBox(State())

    /// Watches `base`; `now` gives the time (the simulated transport's virtual clock).
    public init(base: Base, now: @escaping @Sendable () -> Duration) {
        self.base = base
        self.now = now
    }

    /// What was seen so far.
    public var figures: Figures { state.value.withLock { $0.figures } }

    public func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        let peer = try await base.connect(parameters)
        state.value.withLock { state in
            state.figures.connections += 1
            state.written.reset()
            state.heard.reset()
            state.inFlight = []
        }
        return peer
    }

    public func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }

    public func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        let time = now()
        try await base.write(bytes, to: endpoint, type: type)
        guard endpoint == .smp else { return }
        state.value.withLock { state in
            if state.written.bufferedCount == 0 { state.frameStart = time }
            for frame in (try? state.written.append(bytes)) ?? [] {
                guard case .upload(let chunk)? = try? SMPRequest(frame: frame) else { continue }
                state.figures.firstUpload = state.figures.firstUpload ?? state.frameStart
                state.inFlight.insert(frame.header.sequence)
                state.figures.maxInFlight = max(state.figures.maxInFlight, state.inFlight.count)
                if let image = chunk.image { state.image = image }
                if !state.sent.insert([state.image, chunk.offset]).inserted { state.figures.retransmissions += 1 }
            }
        }
    }

    public func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] {
        try await base.read(endpoint)
    }

    public func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        let notification = try await base.nextNotification(within: timeout)
        guard notification.endpoint == .smp else { return notification }
        let time = now()
        state.value.withLock { state in
            for frame in (try? state.heard.append(notification.bytes)) ?? []
            where frame.header.group == .image && frame.header.command == 1 {
                state.figures.lastUploadAnswer = time
                state.inFlight.remove(frame.header.sequence)
            }
        }
        return notification
    }

    public func waitForDisconnection(within timeout: Duration) async -> Bool {
        await base.waitForDisconnection(within: timeout)
    }

    public func disconnect() async {
        await base.disconnect()
        state.value.withLock { $0.inFlight = [] }
    }
}

/// A reference to a mutex-guarded value, so copies of a struct share it.
private final class SharedBox<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
