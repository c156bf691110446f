/// Switching a Secure DFU application into its bootloader, as a pure state machine.
///
/// Optionally renames the bootloader (0x02), then asks for the jump (0x01). A disconnect
/// instead of the answer to 0x01 counts as success, as the device may reset first.
public struct ButtonlessStateMachine: Sendable {
    private enum Phase: Sendable, Hashable { case idle, enablingNotifications, naming, entering, done, failed }

    let variant: ButtonlessVariant
    private let name: String?
    private var phase: Phase = .idle
    private var acceptedName: String?
    /// How long to wait for an answer.
    let responseTimeout: Duration

    // The runner's view (DFUProtocolMachine, in ButtonlessStateMachine+Machine.swift).
    /// What is left of the current step's actions.
    var agenda = DFUMachineAgenda<DrivenDecision>()
    /// How long the notification awaited last is awaited.
    var awaitedFor: Duration = .zero

    /// Makes a machine; `alternativeName` is ignored by variants that cannot rename.
    public init(variant: ButtonlessVariant, alternativeName: String?,
                responseTimeout: Duration = DFUOptions().responseTimeout) {
        self.variant = variant
        self.name = variant.supportsAdvertisingName ? alternativeName : nil
        self.responseTimeout = responseTimeout
    }

    /// The step, for errors.
    public var step: DFUStep {
        switch phase {
        case .enablingNotifications: .enablingNotifications
        case .naming: .settingAdvertisingName
        case .idle, .entering, .done, .failed: .enteringBootloader
        }
    }

    /// Starts: rename first when a name is set.
    public mutating func start() -> ButtonlessAction {
        if let name {
            phase = .naming
            return .send(.setAdvertisingName(name))
        }
        phase = .entering
        return .send(.enterBootloader)
    }

    /// A notification (`20 <op> <status>`) arrived.
    public mutating func received(_ bytes: [UInt8]) -> ButtonlessAction {
        let response: ButtonlessResponse
        do {
            response = try ButtonlessResponse(bytes: bytes)
        } catch {
            return fail(.unexpectedResponse(step: step, bytes: bytes))
        }
        let status = response.status
        switch phase {
        case .naming where response.request == .setAdvertisingName:
            if status == .success {
                acceptedName = name
            } else if status != .opCodeNotSupported {
                // SDK 13 does not know 0x02; anything else is a real refusal.
                return fail(.remote(step: step, request: "Set Advertising Name", status: .buttonless(status)))
            }
            phase = .entering
            return .send(.enterBootloader)
        case .entering where response.request == .enterBootloader:
            guard status == .success else {
                return fail(.remote(step: step, request: "Enter Bootloader", status: .buttonless(status)))
            }
            phase = .done
            return .jumped(bootloaderName: acceptedName)
        default:
            return fail(.unexpectedResponse(step: step, bytes: bytes))
        }
    }

    /// The link dropped: a success while entering, a failure while naming.
    public mutating func disconnected() -> ButtonlessAction {
        if phase == .entering || phase == .done {
            phase = .done
            return .jumped(bootloaderName: acceptedName)
        }
        return fail(.disconnected(step: step, attempts: 1))
    }

    /// No answer came in time.
    public mutating func timedOut(after duration: Duration) -> ButtonlessAction {
        fail(.timeout(step: step, after: duration))
    }

    private mutating func fail(_ error: DFUError) -> ButtonlessAction {
        phase = .failed
        return .fail(error)
    }

    /// Notifications are being enabled on the characteristic, before ``start()``.
    mutating func enablingNotifications() {
        if phase == .idle { phase = .enablingNotifications }
    }
}
