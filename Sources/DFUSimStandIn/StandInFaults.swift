public import DFUSimulator

/// `--fault SPEC` (repeatable): link and host faults, applied to every simulated device.
///
/// SPECs: `drop-packet=N[:M…]` (packet writes N, M, … counted per device from 1 are lost),
/// `corrupt-packet=N[:M…]`, `disconnect-after-bytes=N` (once, per device), `disconnect-at=OPCODE[:OCCURRENCE]`
/// (once, at a control point request, after the device handled it), `fail-connections=N` (the first N
/// Connect calls fail), `fail-pairing` (every pairing fails), `response-delay-ms=N` (modelled delay before every notification),
/// `no-stale-cache` (the host never reuses cached GATT services), `power-off-after-bytes=N` (the device loses power),
/// `quit-after-bytes=N` (bluetoothd stops for good), `late-announcement-ms=N` (a device found by discovery is
/// announced N ms after it is in the object tree), `late-notify-release-ms=N` (an AcquireNotify descriptor is said to
/// be taken back N ms after its link went down), `services-resolved-first` (a connection's ServicesResolved comes
/// before the InterfacesAdded of the GATT objects it exported).
public struct StandInFaults: Sendable, Hashable {
    /// The link faults, as the simulator models them.
    public var link = SimulatedFaults()
    /// Whether the host keeps GATT services per address across connections, as bluetoothd's `Cache=always` does.
    public var cachesServices = true
    /// Whether every pairing fails, `Device1.Pair` (`org.bluez.Error.AuthenticationFailed`) and bluetoothd's own
    /// when it raises a link's security: the device answers every pairing request "pairing not supported".
    public var pairingFails = false
    /// Control point notifications (1-based, counted per device) lost on the air.
    public var droppedResponses: Set<Int> = []
    /// Remove the adapter (as when it is unplugged) once this many packet bytes reached a device.
    public var adapterVanishesAfterPacketBytes: Int?
    /// Restart the stand-in (leave the bus name, drop every object and link, come back) once this many
    /// packet bytes reached a device.
    public var hostRestartsAfterPacketBytes: Int?
    /// bluetoothd stops for good (`systemctl stop bluetooth`, or a crash with no restart) once this many packet
    /// bytes reached a device: it powers its adapters down, which ends every link (`src/adapter.c`
    /// `adapter_shutdown`), and leaves the bus.
    public var hostQuitsAfterPacketBytes: Int?
    /// The device loses power (a battery that runs out, a board unplugged) once this many packet bytes reached
    /// it: its link ends as a supervision timeout ends it, and it is never heard again.
    public var devicePowersOffAfterPacketBytes: Int?
    /// Control point notifications (1-based, counted per device) delivered late on the wall clock, and
    /// by how much; unlike `responseDelay` of the link, which only moves the modelled clock, the client
    /// waits for it (and what the device does next waits behind it).
    public var lateResponses: [Int: Duration] = [:]
    /// A device object that discovery creates is in the object tree at once (`GetManagedObjects` lists it) but its
    /// `InterfacesAdded` goes this much later. Real bluetoothd signals at once (BlueZ 5.66 `src/device.c`
    /// `device_create` → `g_dbus_register_interface`); this stands for a client that handles the signal late: a
    /// process starved on a busy rig host, whose unread signals wait in its socket (seen in a fresh-clone
    /// `make test-asan`, where a scan's window closed before its one report was handled).
    public var lateAnnouncement: Duration?
    /// A link that goes down with an AcquireNotify descriptor open: the characteristic's `NotifyAcquired` turns false
    /// this much later, not at once. bluetoothd shuts the descriptor down with the link and says it is taken back only
    /// when it handles the hang-up (BlueZ 5.66 `src/gatt-client.c` `btd_gatt_client_disconnected` → `io_shutdown`,
    /// then `sock_hup` → `destroy_sock`), on a later turn of its main loop; this stands for a busy one.
    public var lateNotifyRelease: Duration?
    /// A connection's `ServicesResolved` is sent before the `InterfacesAdded` of the GATT objects the connection
    /// exported, with no call answered in between (a reply would have sent the announcements first). bluetoothd
    /// queues its signals per object and sends them on an idle turn of its main loop, or all at once before any other
    /// message it sends, then in the order the objects first had one pending (BlueZ 5.66 `gdbus/object.c`
    /// `add_pending`, `g_dbus_flush`); a device whose own change was still queued when its services were exported has
    /// its `ServicesResolved` sent first when a flush comes before the idle turn. Not seen in the VM; the order the
    /// code allows.
    public var servicesResolvedFirst = false

    /// No faults; the GATT cache on.
    public init() {}
}
