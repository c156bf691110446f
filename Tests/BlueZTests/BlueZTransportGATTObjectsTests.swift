import BlueZTransport
import DBus
import DFUCore
import DFUSimStandIn
import TestSupport
import Testing

/// A connection finds the device's DFU characteristics among the GATT objects bluetoothd announced
/// (`InterfacesAdded`) or had when the transport opened, without asking bluetoothd for every object it has: on a host
/// that knows many devices, each `GetManagedObjects` decodes all of them. What the transport asked is read by
/// `dbus-monitor`.
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(2)))) struct BlueZTransportGATTObjectsTests {
    static let managedObjectsCalls = "type='method_call',interface='org.freedesktop.DBus.ObjectManager',member='GetManagedObjects'"

    /// The simulated Secure bootloader, at the address it advertises now.
    static func parameters(_ rig: StandInRig) async throws -> DFUConnectParameters {
        DFUConnectParameters(
            selector: .address(try await rig.currentAddress), scanTimeout: .seconds(3), connectTimeout: .seconds(3),
            uuids: DFUServiceUUIDs())
    }

    /// How many GetManagedObjects at `/` the monitor saw until now. The test's own reader then asks at `/marker`
    /// (no object manager there: an error), which the monitor sees after every call sent before it.
    static func managedObjectsCalls(seenBy monitor: BusMonitor, on rig: StandInRig) async throws -> Int {
        _ = try? await rig.reader.managedObjects(at: try ObjectPath("/marker"), destination: try BusName(BlueZNames.service))
        let lines = await monitor.lines { $0.contains("path=/marker;") }
        return lines.filter { $0.contains("member=GetManagedObjects") && $0.contains("path=/;") }.count
    }

    @Test func connectionsFindTheDFUCharacteristicsWithoutAskingBluetoothdForEveryObject() async throws {
        try await StandInRig.with([LiveRig.secureDevice()]) { rig in
            let monitor = try await BusMonitor(address: rig.address, rules: [Self.managedObjectsCalls])
            defer { monitor.stop() }
            let first = try await BlueZTransport.open(busAddress: rig.address)
            // The first connection exports the bootloader's objects; the second finds them kept (bluetoothd's GATT
            // cache), with no InterfacesAdded at all.
            for _ in 0..<2 {
                let peer = try await first.connect(try await Self.parameters(rig))
                #expect(peer.endpoints.isSuperset(of: [.secureControlPoint, .securePacket]))
                await first.disconnect()
            }
            await first.close()
            // A transport opened after they were exported has them from the GetManagedObjects it opens with.
            let second = try await BlueZTransport.open(busAddress: rig.address)
            let peer = try await second.connect(try await Self.parameters(rig))
            #expect(peer.endpoints.isSuperset(of: [.secureControlPoint, .securePacket]))
            await second.close()
            // One for each transport's opening, none for a connection.
            #expect(try await Self.managedObjectsCalls(seenBy: monitor, on: rig) == 2)
        }
    }

    @Test func servicesResolvedBeforeTheObjectsAnnouncementsStillFindsTheDFUCharacteristics() async throws {
        var options = StandInRig.Options()
        options.faults.servicesResolvedFirst = true
        try await StandInRig.with([LiveRig.secureDevice()], options: options) { rig in
            let monitor = try await BusMonitor(address: rig.address, rules: [Self.managedObjectsCalls])
            defer { monitor.stop() }
            let transport = try await BlueZTransport.open(busAddress: rig.address)
            let peer = try await transport.connect(try await Self.parameters(rig))
            #expect(peer.endpoints.isSuperset(of: [.secureControlPoint, .securePacket]))
            #expect(peer.maximumWriteLength == 244)
            await transport.close()
            // The opening's only: the connection's call to bluetoothd (the MTU) comes back after the announcements,
            // which are kept as they are read.
            #expect(try await Self.managedObjectsCalls(seenBy: monitor, on: rig) == 1)
        }
    }
}
