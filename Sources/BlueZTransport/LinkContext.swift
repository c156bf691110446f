import BlueZ
import DFUCore
import IOLoop

/// The state of one connection: the device, its DFU characteristics, and what was acquired from BlueZ.
final class LinkContext {
    /// The device object.
    let device: BlueZPath
    /// Notifications and the link going down, for the engine.
    let events: LinkEvents
    /// The DFU characteristics found, by role.
    var characteristics: [DFUEndpoint: BlueZGattCharacteristic] = [:]
    /// Characteristics notifying through StartNotify: their `Value` changes are notifications.
    var valueWatch: [BlueZPath: DFUEndpoint] = [:]
    /// Readers of AcquireNotify descriptors.
    var readers: [DFUEndpoint: NotificationReader] = [:]
    /// The AcquireWrite descriptor of the packet characteristic.
    var writer: PacketWriter?
    /// The endpoint whose characteristic ``writer`` writes to.
    var writerEndpoint: DFUEndpoint?
    /// AcquireWrite was refused: packets go through WriteValue type=command.
    var acquireWriteRefused = false
    /// The WriteValue type=command calls to each characteristic packets went to by WriteValue (each kept call
    /// reuses the message it built for a packet size).
    var commands: [BlueZPath: BlueZWriteCommands] = [:]
    /// WriteValue type=command calls that asked for an answer and have not had it yet, oldest first (see
    /// ``BlueZTransport/sendCommandAskingForAnswer(_:through:in:)``); each ends with the error it met, if any.
    var commandsInFlight: [BlueZPendingCall] = []
    /// WriteValue type=command calls sent without asking for an answer since the last call on the link that was
    /// answered.
    var commandsUnanswered = 0
    /// BlueZ reported this link as connected (a later Connected=false means it dropped).
    var sawConnected = false
    /// The ATT MTU of the link.
    var mtu = 23

    /// An MTU bluetoothd reports (negotiated with the device), within what ATT allows: at least the default 23, at
    /// most 517 (an attribute value holds 512 bytes; Core 5.3 Vol 3 Part F 3.2.9), so that no length derived from
    /// it is negative or beyond any write.
    static func attMTU(_ reported: Int) -> Int { min(max(reported, 23), 517) }

    init(device: BlueZPath, loop: EventLoop) {
        self.device = device
        events = LinkEvents(loop: loop)
    }

    /// Closes every acquired descriptor (idempotent), after delivering the notifications already received.
    func release() {
        for reader in readers.values { reader.flush() }
        for reader in readers.values { reader.stop() }
        readers = [:]
        writer?.close()
        writer = nil
    }
}
