import DBus
import DFUCore
import DFUSimStandIn

/// A BlueZ pairing agent (org.bluez.Agent1) with NoInputNoOutput capability that accepts every
/// Just Works pairing, as an nRF5 application with bonds does: the simulated device's side of
/// bonding. While the simulated device runs a Secure DFU bootloader it refuses every pairing, as
/// that bootloader answers "pairing not supported" (SDK 15–17 `nrf_dfu_ble.c` `ble_evt_handler`,
/// BLE_GAP_EVT_SEC_PARAMS_REQUEST).
///
/// bluetoothd asks an agent to confirm even a Just Works pairing (RequestAuthorization, or
/// RequestConfirmation for LE Secure Connections) and refuses the pairing when no agent is
/// registered ("No agent available for request type 2"). The agent is registered as the default
/// agent, since pairing requests from a remote central go to the default one.
///
/// For an SMP device whose characteristic needs security the agent takes the device's IO capability
/// (`io=`): it answers RequestPasskey with the device's `passkey=` (KeyboardOnly, KeyboardDisplay),
/// shows a passkey the kernel chose in the log (DisplayPasskey), and confirms numeric comparison
/// (RequestConfirmation), as the device's user would.
struct PairingAgent: Sendable {
    /// Where the agent object is exported.
    let path: ObjectPath
    private let connection: DBusConnection
    private let service: BusName
    private let manager: InterfaceName
    private let log: PeripheralHost.Log
    private let refusesPairing: @Sendable () async -> Bool
    /// The SMP device's pairing, nil for the nRF5 kinds (NoInputNoOutput).
    private let pairing: DevicePairing?

    /// Prepares the agent; nothing is exported until ``register()``. `refusesPairing` says whether the
    /// simulated device refuses pairing now.
    init(
        connection: DBusConnection, service: BusName, log: @escaping PeripheralHost.Log, pairing: DevicePairing? = nil,
        refusesPairing: @escaping @Sendable () async -> Bool
    ) throws(DBusError) {
        self.connection = connection
        self.pairing = pairing
        self.service = service
        self.log = log
        self.refusesPairing = refusesPairing
        path = try ObjectPath("/org/dfusim/peripheral/agent")
        manager = try InterfaceName(BlueZNames.agentManager)
    }

    /// Exports the agent, registers it with bluetoothd and makes it the default agent.
    func register() async throws(PeripheralError) {
        do {
            try connection.export([try interface()], at: path)
            try await call("RegisterAgent", [.objectPath(path), .string(capability)])
            try await call("RequestDefaultAgent", [.objectPath(path)])
        } catch {
            throw .bluez(what: "registering the pairing agent", reason: error.description)
        }
        if let pairing {
            log("pairing agent registered (\(capability), passkey \(Self.sixDigits(pairing.passkey)), SMP needs \(pairing.security.rawValue) keys)")
        } else {
            log("pairing agent registered (NoInputNoOutput, accepts Just Works)")
        }
    }

    /// Unregisters and unexports the agent (errors ignored: bluetoothd may be gone).
    func unregister() async {
        try? await call("UnregisterAgent", [.objectPath(path)])
        try? connection.unexport(at: path)
    }

    /// The IO capability registered: the SMP device's, else NoInputNoOutput.
    private var capability: String { pairing?.capability.rawValue ?? "NoInputNoOutput" }

    /// A passkey as six digits.
    static func sixDigits(_ passkey: UInt32) -> String {
        let digits = String(passkey)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    private func call(_ member: String, _ arguments: [DBusValue]) async throws(DBusError) {
        _ = try await connection.call(
            destination: service, path: try ObjectPath(BlueZNames.root), interface: manager, member: try MemberName(member),
            arguments: arguments)
    }

    private func interface() throws(DBusError) -> DBusInterface {
        let device = DBusArgument("device", "o")
        let log = log
        let refuses = refusesPairing
        let accept: DBusMethod.Handler = { message in
            if await refuses() {
                log("pairing refused (a Secure DFU bootloader does not pair): \(message.member?.rawValue ?? "?")")
                throw BlueZNames.error("Rejected", "Pairing not supported")
            }
            log("pairing accepted: \(message.member?.rawValue ?? "?") for \(message.arguments.first?.objectPathValue?.rawValue ?? "?")")
            return []
        }
        let reject: DBusMethod.Handler = { message in
            log("pairing request refused (needs input or output): \(message.member?.rawValue ?? "?")")
            throw BlueZNames.error("Rejected", "NoInputNoOutput agent")
        }
        let pairing = pairing
        // The device's user types its passkey; only a device with a keyboard can.
        let typePasskey: DBusMethod.Handler = { message in
            guard let pairing, pairing.capability == .keyboardOnly || pairing.capability == .keyboardDisplay else {
                return try await reject(message)
            }
            log("passkey entered: \(Self.sixDigits(pairing.passkey))")
            return [.uint32(pairing.passkey)]
        }
        // The kernel chose a passkey for the device to show; the central's user types it.
        let showPasskey: DBusMethod.Handler = { message in
            guard pairing != nil else { return try await reject(message) }
            let shown = message.arguments.count > 1 ? message.arguments[1].integerValue.map { Self.sixDigits(UInt32(clamping: $0)) } : nil
            log("passkey shown: \(shown ?? "?")")
            return []
        }
        return DBusInterface(
            try InterfaceName(BlueZNames.agent),
            methods: [
                DBusMethod(try MemberName("Release")) { _ in [] },
                DBusMethod(try MemberName("Cancel")) { _ in [] },
                DBusMethod(try MemberName("RequestAuthorization"), inputs: [device], handler: accept),
                DBusMethod(
                    try MemberName("RequestConfirmation"), inputs: [device, DBusArgument("passkey", "u")], handler: accept),
                DBusMethod(
                    try MemberName("AuthorizeService"), inputs: [device, DBusArgument("uuid", "s")], handler: accept),
                DBusMethod(
                    try MemberName("RequestPinCode"), inputs: [device], outputs: [DBusArgument("pincode", "s")],
                    handler: reject),
                DBusMethod(
                    try MemberName("RequestPasskey"), inputs: [device], outputs: [DBusArgument("passkey", "u")],
                    handler: typePasskey),
                DBusMethod(
                    try MemberName("DisplayPasskey"),
                    inputs: [device, DBusArgument("passkey", "u"), DBusArgument("entered", "q")], handler: showPasskey),
                DBusMethod(try MemberName("DisplayPinCode"), inputs: [device, DBusArgument("pincode", "s")], handler: reject),
            ])
    }
}
