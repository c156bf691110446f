import DBus
import DFUSimStandIn
import Testing

/// What `make soak` relies on: a lost control point notification, the adapter vanishing and
/// bluetoothd restarting part-way through an upload, and the report naming broken invariants.
@Suite(.serialized, .enabled(if: dbusDaemonInstalled, "needs dbus-daemon"))
struct StandInSoakFaultTests {
    static let request = DBusValue.stringVariantDictionary(["type": .string("request")])
    static let command = DBusValue.stringVariantDictionary(["type": .string("command")])

    /// Connects to the Secure bootloader and subscribes to its control point.
    private func secureSession(_ bus: StandInHarness) async throws -> (
        device: ObjectPath, controlPoint: ObjectPath, packet: ObjectPath
    ) {
        let session = try await SecureSessionByHand(bus)
        return (session.device, session.controlPoint, session.packet)
    }

    /// The paths the stand-in serves now.
    private func servedPaths(_ bus: StandInHarness) async throws -> Set<String> {
        Set(try await bus.client.managedObjects(destination: bus.service).keys.map(\.rawValue))
    }

    @Test func dropResponseLosesExactlyTheNamedControlPointNotification() async throws {
        try await withStandIn(devices: ["secure"], faults: ["drop-response=2"]) { bus in
            let (_, controlPoint, _) = try await secureSession(bus)
            let requests = [SecureDFUByHand.select(0x01), SecureDFUByHand.select(0x02), SecureDFUByHand.select(0x01)]
            for request in requests {
                _ = try await bus.call(
                    controlPoint, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(request), Self.request])
            }
            // Answers 1 and 3 arrive (Select response, opcode 0x06 echoed in byte 1); answer 2 never does.
            #expect(try await bus.notification(2, on: controlPoint)[0...2] == [0x60, 0x06, 0x01])
            let answers = bus.notifications(on: controlPoint)
            #expect(answers.count == 2)
            // Both are the command object's answer (its maximum size); the data object's answer is lost.
            #expect(answers.first == answers.last)
            #expect(answers.map { SecureDFUByHand.readUInt32($0, at: 3) } == [256, 256])
        }
    }

    @Test func aLateResponseReachesTheClientThatMuchLaterOnTheWallClock() async throws {
        // Held back a whole second, so that a loaded machine's slow round trip is not taken for it.
        try await withStandIn(devices: ["secure"], faults: ["late-response=2:1000"]) { bus in
            let (_, controlPoint, _) = try await secureSession(bus)
            func select() async throws -> Duration {
                let start = ContinuousClock.now
                let count = bus.notifications(on: controlPoint).count
                _ = try await bus.call(
                    controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
                    [.byteArray(SecureDFUByHand.select(0x01)), Self.request])
                _ = try await bus.notification(count + 1, on: controlPoint)
                return ContinuousClock.now - start
            }
            // Answer 1 on time, answer 2 held back 1000 ms, answer 3 on time again.
            #expect(try await select() < .milliseconds(1000))
            #expect(try await select() >= .milliseconds(1000))
            #expect(try await select() < .milliseconds(1000))
        }
    }

    @Test func adapterVanishesOnceTheNamedBytesReachedTheDevice() async throws {
        try await withStandIn(devices: ["secure"], faults: ["adapter-vanish-after-bytes=1"]) { bus in
            let (_, controlPoint, packet) = try await secureSession(bus)
            #expect(try await servedPaths(bus).contains("/org/bluez/hci0"))
            _ = try await bus.call(
                controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
                [.byteArray(SecureDFUByHand.create(0x01, size: 4)), Self.request])
            _ = try await bus.call(
                packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray([1, 2, 3, 4]), Self.command])
            try await bus.waitUntil("the adapter is removed") {
                try await servedPaths(bus).allSatisfy { !$0.hasPrefix("/org/bluez/hci0") }
            }
            #expect(try await servedPaths(bus).contains("/org/bluez"))
        }
    }

    @Test func restartLeavesTheNameAndComesBackWithoutDevices() async throws {
        try await withStandIn(devices: ["secure"], faults: ["restart-after-bytes=1"]) { bus in
            let (device, controlPoint, packet) = try await secureSession(bus)
            _ = try await bus.call(
                controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
                [.byteArray(SecureDFUByHand.create(0x01, size: 4)), Self.request])
            _ = try await bus.call(
                packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray([1, 2, 3, 4]), Self.command])
            // org.bluez has no owner for a moment (the object manager cannot be asked), then is back,
            // without the link or the device object.
            try await bus.waitUntil("org.bluez is released") { (try? await servedPaths(bus)) == nil }
            try await bus.waitUntil("the stand-in serves again") {
                let paths = (try? await servedPaths(bus)) ?? []
                return paths.contains("/org/bluez/hci0") && !paths.contains(device.rawValue)
            }
            // The restarted stand-in finds the device again.
            _ = try await bus.discover("C0:FF:EE:00:00:10")
        }
    }

    @Test func reportNamesEveryInvariantTheClientBroke() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let (_, controlPoint, packet) = try await secureSession(bus)
            #expect(await bus.standIn.report().devices.first?.violations == [])
            _ = try await bus.call(
                controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
                [.byteArray(SecureDFUByHand.create(0x01, size: 4)), Self.request])
            // Eight bytes into a command object created with four.
            _ = try await bus.call(
                packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(Array(repeating: 0, count: 8)), Self.command])
            try await bus.waitUntil("the violation is reported") {
                await bus.standIn.report().devices.first?.violations.isEmpty == false
            }
            let violations = try #require(await bus.standIn.report().devices.first?.violations)
            #expect(violations == ["wrote 8 bytes into a command object created with 4"])
        }
    }
}
