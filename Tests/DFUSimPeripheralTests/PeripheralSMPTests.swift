import DBus
import DFUCore
import DFUSimPeripheral
import DFUSimStandIn
import DFUSimSupport
import Synchronization
import TestSupport
import Testing

/// `dfu-sim peripheral --device smp|smp-auth|smp-nrf5340` against the fake bluetoothd: the SMP service
/// registered through GattManager1, answers split at ATT MTU − 5 (what bluetoothd's multiple handle value
/// notifications carry whole), the reset re-registering the swapped target, the report's slots and SMP statistics, and smp-auth's flags and pairing agent.
@Suite(.serialized, .enabled(if: DBusDaemon.executablePath() != nil, "needs dbus-daemon"))
struct PeripheralSMPTests {
    static let characteristicUUID = "DA2E7828-FBCE-4E01-AE9E-261174997C48"
    static let serviceUUID = "8D53DC1D-1DB7-4CD3-868B-8A527460AA84"

    /// The SMP characteristic's path and properties in the first application registered.
    static func smpCharacteristic(in bluez: FakeBluetoothd) throws -> (ObjectPath, [String: DBusValue]) {
        let objects = bluez.seen.withLock { $0.applications.values.first } ?? [:]
        let found = objects.first {
            $0.value["org.bluez.GattCharacteristic1"]?["UUID"]?.stringValue == Self.characteristicUUID
        }
        let entry = try #require(found, "no SMP characteristic")
        return (entry.key, try #require(entry.value["org.bluez.GattCharacteristic1"]))
    }

    /// Writes `frame` with WriteValue as bluetoothd does for a write command (ATT MTU in the options) and
    /// collects notifications until a whole SMP frame came back.
    static func exchange(
        _ frame: [UInt8], with bluez: FakeBluetoothd, at path: ObjectPath, mtu: UInt16
    ) async throws -> (frame: SMPFrame, notifications: [[UInt8]]) {
        let changes = try await bluez.connection.signals(
            matching: DBusMatchRule(
                path: path, interface: try InterfaceName("org.freedesktop.DBus.Properties"),
                member: try MemberName("PropertiesChanged")))
        var offset = 0
        while offset < frame.count {
            let end = min(frame.count, offset + Int(mtu) - 3)
            _ = try await bluez.callApplication(
                path, "WriteValue",
                [.byteArray(Array(frame[offset..<end])), .stringVariantDictionary(["mtu": .uint16(mtu)])])
            offset = end
        }
        // A lost answer fails the test within 10 s instead of leaving it waiting for ever.
        let answer = await withTaskGroup(of: Result<(SMPFrame, [[UInt8]]), any Error>?.self) { group in
            group.addTask {
                var assembler = SMPFrameAssembler()
                var notifications: [[UInt8]] = []
                for await message in changes {
                    guard let value = DBusPropertiesChanged(message)?.changed["Value"]?.byteArrayValue else { continue }
                    notifications.append(value)
                    do {
                        if let frame = try assembler.append(value).first { return .success((frame, notifications)) }
                    } catch {
                        return .failure(error)
                    }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: TestTime.scaled(.seconds(10)))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let answer else { throw DBusError(name: "org.bluez.Error.Failed", message: "no answer within 10 s") }
        let (answered, notifications) = try answer.get()
        return (answered, notifications)
    }

    @Test func theSMPServiceIsRegisteredAsZephyrDeclaresItAndAdvertised() async throws {
        try await PeripheralRig.withPeripheral("smp") { bluez, _ in
            let (_, properties) = try Self.smpCharacteristic(in: bluez)
            #expect(properties["Flags"]?.stringArrayValue == ["write-without-response", "notify"])
            #expect(properties["WriteAcquired"]?.boolValue == false, "AcquireWrite is offered")
            let advertisement = try #require(bluez.seen.withLock { $0.advertisements.values.first })
            #expect(advertisement["LocalName"]?.stringValue == "Zephyr")
            #expect(advertisement["ServiceUUIDs"]?.stringArrayValue == [Self.serviceUUID])
            #expect(bluez.seen.withLock { $0.agent == nil }, "an open SMP characteristic needs no agent")
        }
    }

    /// With ATT MTU 23 the 84-byte echo answer (its map open-ended, as zcbor writes it) goes out in notifications of 18 bytes: MTU − 3 as `smp_bt_tx_pkt`
    /// splits, less the 4 bytes bluetoothd adds when it sends them as multiple handle value notifications.
    @Test func answersAreSplitAtTheMTUBluetoothdGivesAndTheReportCountsThem() async throws {
        try await PeripheralRig.withPeripheral("smp") { bluez, host in
            let (path, _) = try Self.smpCharacteristic(in: bluez)
            _ = try await bluez.callApplication(path, "StartNotify")
            let text = String(repeating: "0123456789", count: 7)
            let request = try SMPRequest.echo(text).frame(sequence: 3).bytes
            let (frame, notifications) = try await Self.exchange(request, with: bluez, at: path, mtu: 23)
            #expect(try SMPResponse(frame: frame, answering: .echo) == .echo(text))
            #expect(frame.header.sequence == 3)
            #expect(notifications.map(\.count) == [18, 18, 18, 18, 12])
            let report = await host.currentReport
            #expect(report.stats?.requests == 1)
            #expect(report.stats?.maximumInFlight == 1)
            #expect(report.stats?.resets == 0)
            #expect(report.slots?.map(\.version) == ["1.0.0"])
            #expect(report.slots?.first?.active == true)
        }
    }

    /// Reset: the peripheral answers, then boots again (MCUboot runs) and registers its application anew.
    @Test func aResetReRegistersTheTargetAndCountsInTheReport() async throws {
        let bluez = try await PeripheralRig.withPeripheral("smp,reset_ms=10") { bluez, host in
            let (path, _) = try Self.smpCharacteristic(in: bluez)
            _ = try await bluez.callApplication(path, "StartNotify")
            let (frame, _) = try await Self.exchange(
                try SMPRequest.reset.frame(sequence: 0).bytes, with: bluez, at: path, mtu: 247)
            #expect(try SMPResponse(frame: frame, answering: .reset) == .reset)
            // The second boot is complete once its advertisement is registered too (then it is in the report).
            let deadline = ContinuousClock.now + .seconds(20)
            while await host.currentReport.boots.count < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(bluez.seen.withLock { $0.applications.count } == 2)
            #expect(await host.currentReport.stats?.resets == 1)
        }
        #expect(bluez.seen.withLock { $0.unregisteredApplications.count } == 2)
    }

    /// A device that resets advertises no more from that moment: the advertisement is withdrawn before the link is
    /// dropped, so the kernel has nothing of the old role to advertise again once the link is down.
    @Test func aResetWithdrawsTheAdvertisementBeforeItDropsTheLink() async throws {
        let bluez = try await PeripheralRig.withPeripheral("smp,reset_ms=10") { bluez, host in
            let (path, _) = try Self.smpCharacteristic(in: bluez)
            _ = try await bluez.callApplication(path, "StartNotify")
            // An SMP reset request (OS group, command 5), written by the central the options name.
            let request = try SMPRequest.reset.frame(sequence: 0).bytes
            _ = try await bluez.callApplication(path, "WriteValue", [.byteArray(request), bluez.centralOptions])
            let deadline = ContinuousClock.now + .seconds(20)
            while await host.currentReport.boots.count < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await host.currentReport.boots.count == 2)
        }
        #expect(bluez.seen.withLock { Array($0.linkCalls.prefix(2)) } == ["UnregisterAdvertisement", "Disconnect"])
    }

    /// smp-auth: bluetoothd enforces the security (flags `encrypt-authenticated-write`/`-notify`, BlueZ 5.66
    /// `parse_chrc_flags`), and the peripheral registers a default agent with the device's IO capability.
    @Test func smpAuthAsksBluetoothdForAuthenticatedSecurityAndPairsWithItsOwnAgent() async throws {
        try await PeripheralRig.withPeripheral("smp-auth,io=KeyboardOnly,passkey=24680") { bluez, _ in
            let (_, properties) = try Self.smpCharacteristic(in: bluez)
            #expect(
                properties["Flags"]?.stringArrayValue == [
                    "write-without-response", "encrypt-authenticated-write", "encrypt-authenticated-notify",
                ])
            let (agent, defaultAgent) = bluez.seen.withLock { ($0.agent, $0.defaultAgent) }
            let registered = try #require(agent)
            #expect(registered.capability == "KeyboardOnly")
            #expect(defaultAgent == registered.path)
            let device = DBusValue.objectPath(try ObjectPath("/org/bluez/hci1/dev_00_AA_01_02_00_02"))
            #expect(try await bluez.callAgent("RequestPasskey", [device]) == [.uint32(24_680)])
            #expect(try await bluez.callAgent("RequestConfirmation", [device, .uint32(1)]).isEmpty)
        }
        try await PeripheralRig.withPeripheral("smp,security=encrypted") { bluez, _ in
            let (_, properties) = try Self.smpCharacteristic(in: bluez)
            #expect(
                properties["Flags"]?.stringArrayValue == ["write-without-response", "encrypt-write", "encrypt-notify"])
            // DisplayOnly (the default) cannot type a passkey.
            let device = DBusValue.objectPath(try ObjectPath("/org/bluez/hci1/dev_00_AA_01_02_00_02"))
            await #expect(throws: DBusError.self) { try await bluez.callAgent("RequestPasskey", [device]) }
            #expect(try await bluez.callAgent("DisplayPasskey", [device, .uint32(12), .uint16(0)]).isEmpty)
        }
    }

    @Test func theNRF5340KindReportsBothImages() async throws {
        try await PeripheralRig.withPeripheral("smp-nrf5340") { _, host in
            let report = await host.currentReport
            #expect(report.slots?.map(\.image) == [0, 1])
            #expect(report.stats?.requests == 0)
        }
    }
}
