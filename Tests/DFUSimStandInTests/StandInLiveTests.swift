import DBus
import DFUCrypto
import DFUSimStandIn
import DFUSimSupport
import Foundation
import Glibc
import TestSupport
import Testing

/// The stand-in served in this process on a private dbus-daemon, driven through the `DBus` client
/// exactly as a BlueZ client would drive bluetoothd.
@Suite(.serialized, .enabled(if: dbusDaemonInstalled, "needs dbus-daemon"))
struct StandInLiveTests {
    static let request = DBusValue.stringVariantDictionary(["type": .string("request")])
    static let command = DBusValue.stringVariantDictionary(["type": .string("command")])
    static let noOptions = DBusValue.stringVariantDictionary([:])

    @Test func adapterShowsBlueZPropertiesAndDiscoveryAnnouncesEachDevice() async throws {
        try await withStandIn(devices: ["secure,address=C0:11:22:33:44:55,name=MyBoot", "buttonless,name=MyApp"]) {
            bus in
            let adapter = try bus.adapter
            #expect(
                try await bus.property("Address", of: BlueZNames.adapter, at: adapter).stringValue
                    == "00:AA:01:00:00:00")
            #expect(try await bus.property("Powered", of: BlueZNames.adapter, at: adapter).boolValue == true)
            #expect(try await bus.property("Discovering", of: BlueZNames.adapter, at: adapter).boolValue == false)

            let boot = try await bus.discover("C0:11:22:33:44:55", uuids: ["fe59"])
            let device = try await bus.client.allProperties(
                of: try InterfaceName(BlueZNames.device), at: boot, destination: bus.service)
            #expect(device["Address"]?.stringValue == "C0:11:22:33:44:55")
            #expect(device["AddressType"]?.stringValue == "random")
            #expect(device["Name"]?.stringValue == "MyBoot")
            #expect(device["Alias"]?.stringValue == "MyBoot")
            #expect(device["UUIDs"]?.stringArrayValue == ["0000fe59-0000-1000-8000-00805f9b34fb"])
            #expect(device["Connected"]?.boolValue == false)
            #expect(device["ServicesResolved"]?.boolValue == false)
            #expect(device["Adapter"]?.objectPathValue == adapter)
            // The RSSI is present while discovering, invalidated when discovery stops.
            #expect(device["RSSI"] == nil)
            try await bus.waitUntil("InterfacesAdded for the bootloader") {
                bus.signals.messages.compactMap(DBusInterfacesAdded.init).map(\.object).contains(boot)
            }
            let added = bus.signals.messages.compactMap(DBusInterfacesAdded.init).map(\.object)
            // A filter on FE59 leaves out the application (it advertises Heart Rate).
            #expect(!added.contains { $0.rawValue.hasSuffix("dev_C0_FF_EE_00_00_20") })
        }
    }

    /// B1/B2: the Secure bootloader's table as bluetoothd exports it (Packet before Control Point,
    /// Packet write-without-response only), and the objects stay after the link goes (Cache=always).
    @Test func connectExportsTheGATTTreeWhichOutlivesTheLink() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            try await bus.connect(device)
            #expect(try await bus.property("Connected", of: BlueZNames.device, at: device).boolValue == true)
            let objects = try await bus.client.managedObjects(destination: bus.service)
            let services = objects.filter { device.isAncestor(of: $0.key) && $0.value[BlueZNames.gattService] != nil }
            #expect(
                services.keys.map(\.rawValue).sorted() == [
                    device.rawValue + "/service000a", device.rawValue + "/service000e",
                ])
            // FE59 at 0x000E: Packet declared at 0x000F (value 0x0010), Control Point at 0x0011
            // (value 0x0012, CCCD 0x0013).
            let packet = try #require(objects[try device.appending("service000e").appending("char000f")])
            let packetProperties = try #require(packet[BlueZNames.gattCharacteristic])
            #expect(packetProperties["UUID"]?.stringValue == SecureDFUByHand.packet)
            #expect(packetProperties["Flags"]?.stringArrayValue == ["write-without-response"])
            #expect(packetProperties["WriteAcquired"]?.boolValue == false)
            #expect(packetProperties["Notifying"] == nil)
            #expect(packetProperties["Handle"] == nil)
            let controlPoint = try #require(objects[try device.appending("service000e").appending("char0011")])
            let properties = try #require(controlPoint[BlueZNames.gattCharacteristic])
            #expect(properties["UUID"]?.stringValue == SecureDFUByHand.controlPoint)
            #expect(properties["Flags"]?.stringArrayValue == ["write", "notify"])
            #expect(properties["MTU"]?.integerValue == 247)
            #expect(properties["Notifying"]?.boolValue == false)
            let descriptor = try #require(
                objects[try device.appending("service000e").appending("char0011").appending("desc0013")])
            #expect(
                descriptor[BlueZNames.gattDescriptor]?["UUID"]?.stringValue == "00002902-0000-1000-8000-00805f9b34fb")
            #expect(
                try await bus.property("UUIDs", of: BlueZNames.device, at: device).stringArrayValue == [
                    "00001800-0000-1000-8000-00805f9b34fb", "00001801-0000-1000-8000-00805f9b34fb",
                    "0000fe59-0000-1000-8000-00805f9b34fb",
                ])
            let tree = try await bus.gattObjects(of: device)

            _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            #expect(try await bus.property("Connected", of: BlueZNames.device, at: device).boolValue == false)
            #expect(try await bus.property("ServicesResolved", of: BlueZNames.device, at: device).boolValue == false)
            #expect(try await bus.gattObjects(of: device) == tree)
            // The cached objects answer, but without a link.
            await #expect(throws: DBusError(name: "org.bluez.Error.Failed", message: "Not connected")) {
                _ = try await bus.call(
                    try device.appending("service000e").appending("char0011"), BlueZNames.gattCharacteristic,
                    "WriteValue", [.byteArray([0x06, 0x01]), Self.request])
            }
        }
    }

    /// B1 with `Cache = no`: the objects go with the link, as `gatt_cache_cleanup` clears the database.
    @Test func withoutTheCacheTheObjectsGoWithTheLink() async throws {
        try await withStandIn(devices: ["secure"], bluetoothd: "cache=no") { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            try await bus.connect(device)
            #expect(try await bus.gattObjects(of: device).count == 7)
            _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            #expect(try await bus.gattObjects(of: device).isEmpty)
        }
    }

    @Test func secureDFUByHandInstallsTheImageThroughWriteValueAndAcquireWrite() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let session = try await SecureSessionByHand(bus)
            let (device, packet) = (session.device, session.packet)
            let send = session.send

            let image = SecureDFUByHand.image(5000)
            let initPacket = SecureDFUByHand.initPacket(for: image)
            // Command object: Select, Create, the init packet by WriteValue(command), Checksum, Execute.
            let selected = try await send(SecureDFUByHand.select(0x01))
            #expect(Array(selected.prefix(3)) == [0x60, 0x06, 0x01])
            #expect(try await send(SecureDFUByHand.create(0x01, size: initPacket.count)) == [0x60, 0x01, 0x01])
            _ = try await bus.call(
                packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(initPacket), Self.command])
            let commandChecksum = try await send(SecureDFUByHand.checksum)
            #expect(SecureDFUByHand.readUInt32(commandChecksum, at: 3) == initPacket.count)
            #expect(UInt32(SecureDFUByHand.readUInt32(commandChecksum, at: 7)) == CRC32.checksum(initPacket))
            #expect(try await send(SecureDFUByHand.execute) == [0x60, 0x04, 0x01])

            // Data objects of 4096 bytes through the AcquireWrite socket, 244 bytes per datagram.
            let acquired = try await bus.call(packet, BlueZNames.gattCharacteristic, "AcquireWrite", [Self.noOptions])
            let socket = try #require(acquired.first?.fileDescriptorValue)
            #expect(acquired.last?.integerValue == 247)
            #expect(
                try await bus.property("WriteAcquired", of: BlueZNames.gattCharacteristic, at: packet).boolValue == true
            )
            let descriptor = try #require(socket.rawValue)
            var offset = 0
            while offset < image.count {
                let objectSize = min(4096, image.count - offset)
                #expect(try await send(SecureDFUByHand.create(0x02, size: objectSize)) == [0x60, 0x01, 0x01])
                // As Nordic's clients do, give the bootloader 400 ms to prepare its bank after the first Create.
                if offset == 0 { try await Task.sleep(for: .milliseconds(400)) }
                var sent = 0
                while sent < objectSize {
                    let chunk = Array(image[(offset + sent)..<(offset + min(sent + 244, objectSize))])
                    let written = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                    #expect(written == chunk.count)
                    sent += chunk.count
                }
                offset += objectSize
                let checksum = try await send(SecureDFUByHand.checksum)
                #expect(SecureDFUByHand.readUInt32(checksum, at: 3) == offset)
                #expect(UInt32(SecureDFUByHand.readUInt32(checksum, at: 7)) == CRC32.checksum(image[0..<offset]))
                #expect(try await send(SecureDFUByHand.execute) == [0x60, 0x04, 0x01])
            }
            // The last Execute reboots the target into the new application: the link drops.
            try await bus.waitUntil("disconnect after the last Execute") {
                try await bus.property("Connected", of: BlueZNames.device, at: device).boolValue == false
            }
            socket.close()
            let report = await bus.standIn.report()
            let entry = try #require(report.devices.first)
            #expect(entry.images["application"] == StandInReport.Image(bytes: image))
            #expect(entry.stats.objectsExecuted == 3)
            #expect(entry.stats.crcFailures == 0)
            #expect(entry.stats.connections == 1)
            #expect(entry.stats.modelledMilliseconds > 0)
        }
    }

    @Test func acquireNotifyDeliversNotificationsThroughTheSocket() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            try await bus.connect(device)
            let controlPoint = try #require(try await bus.characteristics(of: device)[SecureDFUByHand.controlPoint])
            let reply = try await bus.call(
                controlPoint, BlueZNames.gattCharacteristic, "AcquireNotify", [Self.noOptions])
            let socket = try #require(reply.first?.fileDescriptorValue?.rawValue)
            #expect(
                try await bus.property("NotifyAcquired", of: BlueZNames.gattCharacteristic, at: controlPoint).boolValue
                    == true)
            await #expect(throws: DBusError(name: "org.bluez.Error.NotPermitted", message: "Notify acquired")) {
                _ = try await bus.call(controlPoint, BlueZNames.gattCharacteristic, "StartNotify")
            }
            _ = try await bus.call(
                controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
                [.byteArray(SecureDFUByHand.select(0x01)), Self.request])
            // Waited for on a thread of its own: the test runs on the loop the stand-in answers on.
            let ready = try await offThePool {
                var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                return poll(&entry, 1, 5000)
            }
            #expect(ready == 1)
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
            // 60 06 01, max size 256, offset 0, CRC 0.
            #expect(
                Array(buffer.prefix(max(0, count))) == [0x60, 0x06, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
            #expect(bus.notifications(on: controlPoint).isEmpty)
        }
    }

    @Test func buttonlessJumpDropsTheLinkAndTheBootloaderAppearsAtAddressPlusOne() async throws {
        try await withStandIn(devices: ["buttonless,address=C0:00:00:00:00:FF"]) { bus in
            let app = try await bus.discover("C0:00:00:00:00:FF")
            try await bus.connect(app)
            let buttonless = try #require(
                try await bus.characteristics(of: app)["8ec90003-f315-4f60-9fb8-838830daea50"])
            _ = try await bus.call(buttonless, BlueZNames.gattCharacteristic, "StartNotify")
            _ = try await bus.call(
                buttonless, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray([0x01]), Self.request])
            #expect(try await bus.notification(1, on: buttonless) == [0x20, 0x01, 0x01])
            try await bus.waitUntil("the application drops the link") {
                try await bus.property("Connected", of: BlueZNames.device, at: app).boolValue == false
            }
            // The last byte wraps without carrying: FF + 1 = 00.
            let bootloader = try await bus.discover("C0:00:00:00:00:00", uuids: ["fe59"])
            #expect(try await bus.property("Name", of: BlueZNames.device, at: bootloader).stringValue == "DfuTarg")
            try await bus.connect(bootloader)
            #expect(try await bus.characteristics(of: bootloader)[SecureDFUByHand.controlPoint] != nil)
        }
    }

    /// B1: after a jump at the same address the reconnection re-discovers the primary services:
    /// the application's services that changed are removed (InterfacesRemoved) and the bootloader's
    /// exported (InterfacesAdded) before ServicesResolved turns true; no RemoveDevice is needed.
    @Test func sameAddressJumpReplacesTheChangedServicesBeforeServicesResolved() async throws {
        try await withStandIn(devices: ["legacy-app,address=C0:00:00:00:00:20"]) { bus in
            let device = try await bus.discover("C0:00:00:00:00:20")
            try await bus.connect(device)
            let application = try await bus.characteristics(of: device)
            #expect(application.keys.contains { $0.hasPrefix("0000180e") })
            let controlPoint = try #require(application["00001531-1212-efde-1523-785feabcd123"])
            _ = try await bus.call(controlPoint, BlueZNames.gattCharacteristic, "StartNotify")
            _ = try await bus.call(
                controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
                [.byteArray([0x01, 0x04]), Self.request])
            try await bus.waitUntil("the application drops the link") {
                try await bus.property("Connected", of: BlueZNames.device, at: device).boolValue == false
            }
            // Disconnected: bluetoothd still holds (and exports) the application's table.
            #expect(try await bus.characteristics(of: device).keys.contains { $0.hasPrefix("0000180e") })
            let mark = bus.signals.messages.count
            try await bus.connect(device)
            let fresh = try await bus.characteristics(of: device)
            #expect(!fresh.keys.contains { $0.hasPrefix("0000180e") })
            let version = try #require(fresh["00001534-1212-efde-1523-785feabcd123"])
            let value = try await bus.call(version, BlueZNames.gattCharacteristic, "ReadValue", [Self.noOptions])
            #expect(value.first?.byteArrayValue == [0x08, 0x00])
            // Signal order: Connected, the stale services removed, the new ones added, then ServicesResolved.
            let after = Array(bus.signals.messages.dropFirst(mark))
            let removedAt = try #require(after.firstIndex { DBusInterfacesRemoved($0) != nil })
            let addedAt = try #require(after.firstIndex { DBusInterfacesAdded($0) != nil })
            let connectedAt = try #require(
                after.firstIndex { DBusPropertiesChanged($0)?.changed["Connected"]?.boolValue == true })
            let resolvedAt = try #require(
                after.firstIndex { DBusPropertiesChanged($0)?.changed["ServicesResolved"]?.boolValue == true })
            #expect(connectedAt < removedAt && removedAt < addedAt && addedAt < resolvedAt)
        }
    }

    /// B1: RemoveDevice takes the device's cached GATT objects with it.
    @Test func removeDeviceDropsTheCachedObjects() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            try await bus.connect(device)
            _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            #expect(try await bus.gattObjects(of: device).count == 7)
            _ = try await bus.call(try bus.adapter, BlueZNames.adapter, "RemoveDevice", [.objectPath(device)])
            #expect(try await bus.gattObjects(of: device).isEmpty)
        }
    }

    @Test func anErrorNamedAsBluetoothdNamesItForEachMisuse() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let adapter = try bus.adapter
            await #expect(throws: DBusError(name: "org.bluez.Error.Failed", message: "No discovery started")) {
                _ = try await bus.call(adapter, BlueZNames.adapter, "StopDiscovery")
            }
            _ = try await bus.call(adapter, BlueZNames.adapter, "StartDiscovery")
            await #expect(
                throws: DBusError(name: "org.bluez.Error.InProgress", message: "Operation already in progress")
            ) {
                _ = try await bus.call(adapter, BlueZNames.adapter, "StartDiscovery")
            }
            _ = try await bus.call(adapter, BlueZNames.adapter, "StopDiscovery")
            await #expect(
                throws: DBusError(name: "org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call")
            ) {
                _ = try await bus.call(
                    adapter, BlueZNames.adapter, "SetDiscoveryFilter",
                    [.stringVariantDictionary(["Bogus": .boolean(true)])])
            }
            await #expect(throws: DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist")) {
                _ = try await bus.call(
                    adapter, BlueZNames.adapter, "RemoveDevice",
                    [.objectPath(try adapter.appending("dev_00_00_00_00_00_01"))])
            }
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            try await bus.connect(device)
            let characteristics = try await bus.characteristics(of: device)
            let controlPoint = try #require(characteristics[SecureDFUByHand.controlPoint])
            let packet = try #require(characteristics[SecureDFUByHand.packet])
            // Writing the CCCD directly is refused; StartNotify is the way.
            await #expect(throws: DBusError(name: "org.bluez.Error.NotPermitted", message: "Write not permitted")) {
                _ = try await bus.call(
                    try controlPoint.appending("desc0013"), BlueZNames.gattDescriptor, "WriteValue",
                    [.byteArray([0x01, 0x00]), Self.noOptions])
            }
            // The control point refuses writes until notifications are on (CCCD improperly configured).
            await #expect(
                throws: DBusError(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0xfd")
            ) {
                _ = try await bus.call(
                    controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
                    [.byteArray([0x06, 0x01]), Self.request])
            }
            let acquired = try await bus.call(packet, BlueZNames.gattCharacteristic, "AcquireWrite", [Self.noOptions])
            await #expect(throws: DBusError(name: "org.bluez.Error.NotPermitted", message: "Write acquired")) {
                _ = try await bus.call(
                    packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray([0]), Self.command])
            }
            // Closing the socket gives the characteristic back to WriteValue.
            acquired.first?.fileDescriptorValue?.close()
            try await bus.waitUntil("WriteAcquired turns false") {
                try await bus.property("WriteAcquired", of: BlueZNames.gattCharacteristic, at: packet).boolValue
                    == false
            }
            await #expect(throws: DBusError(name: "org.bluez.Error.Failed", message: "No notify session started")) {
                _ = try await bus.call(controlPoint, BlueZNames.gattCharacteristic, "StopNotify")
            }
        }
    }

    @Test func aClientLeavingTheBusEndsItsDiscovery() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let other = try DBusConnection(address: bus.daemon.address)
            let adapter = try bus.adapter
            _ = try await other.call(
                destination: bus.service, path: adapter, interface: try InterfaceName(BlueZNames.adapter),
                member: try MemberName("StartDiscovery"))
            #expect(try await bus.property("Discovering", of: BlueZNames.adapter, at: adapter).boolValue == true)
            other.close()
            try await bus.waitUntil("Discovering false") {
                try await bus.property("Discovering", of: BlueZNames.adapter, at: adapter).boolValue == false
            }
        }
    }

    @Test func reportCountsCorruptedPacketsAsChecksumFailuresAndDroppedOnes() async throws {
        try await withStandIn(devices: ["secure"], faults: ["corrupt-packet=2", "drop-packet=3"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            try await bus.connect(device)
            let characteristics = try await bus.characteristics(of: device)
            let controlPoint = try #require(characteristics[SecureDFUByHand.controlPoint])
            let packet = try #require(characteristics[SecureDFUByHand.packet])
            _ = try await bus.call(controlPoint, BlueZNames.gattCharacteristic, "StartNotify")
            let image = SecureDFUByHand.image(100)
            let initPacket = SecureDFUByHand.initPacket(for: image)
            var count = 0
            func send(_ request: [UInt8]) async throws -> [UInt8] {
                _ = try await bus.call(
                    controlPoint, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(request), Self.request])
                count += 1
                return try await bus.notification(count, on: controlPoint)
            }
            // Packet write 1: the init packet, intact.
            _ = try await send(SecureDFUByHand.create(0x01, size: initPacket.count))
            _ = try await bus.call(
                packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(initPacket), Self.command])
            _ = try await send(SecureDFUByHand.checksum)
            #expect(try await send(SecureDFUByHand.execute) == [0x60, 0x04, 0x01])
            _ = try await send(SecureDFUByHand.create(0x02, size: image.count))
            // Packet write 2 arrives with its first byte inverted; packet write 3 is lost.
            for chunk in [Array(image[0..<50]), Array(image[50..<100])] {
                _ = try await bus.call(
                    packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(chunk), Self.command])
            }
            let checksum = try await send(SecureDFUByHand.checksum)
            #expect(SecureDFUByHand.readUInt32(checksum, at: 3) == 50)
            let stats = try #require(await bus.standIn.report().devices.first?.stats)
            #expect(stats.crcFailures == 1)
            #expect(stats.droppedPackets == 1)
            #expect(stats.objectsExecuted == 1)
        }
    }

    @Test func pairBondsTheDeviceOrFailsUnderTheFault() async throws {
        try await withStandIn(devices: ["buttonless-bonded"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            _ = try await bus.call(device, BlueZNames.device, "Pair")
            #expect(try await bus.property("Connected", of: BlueZNames.device, at: device).boolValue == true)
            #expect(try await bus.property("Paired", of: BlueZNames.device, at: device).boolValue == true)
            #expect(try await bus.property("Bonded", of: BlueZNames.device, at: device).boolValue == true)
            await #expect(throws: DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")) {
                _ = try await bus.call(device, BlueZNames.device, "Pair")
            }
        }
        try await withStandIn(devices: ["buttonless-bonded"], faults: ["fail-pairing"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            await #expect(
                throws: DBusError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")
            ) {
                _ = try await bus.call(device, BlueZNames.device, "Pair")
            }
            #expect(try await bus.property("Paired", of: BlueZNames.device, at: device).boolValue == false)
        }
    }

    @Test func aPoweredOffAdapterAnswersNotReady() async throws {
        try await withStandIn(devices: ["secure"], powered: false) { bus in
            let adapter = try bus.adapter
            #expect(try await bus.property("Powered", of: BlueZNames.adapter, at: adapter).boolValue == false)
            await #expect(throws: DBusError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready")) {
                _ = try await bus.call(adapter, BlueZNames.adapter, "StartDiscovery")
            }
        }
    }

    @Test func connectionFaultsFailConnectAndAbsentDevicesTimeOut() async throws {
        try await withStandIn(devices: ["secure"], link: "connect_timeout_ms=50", faults: ["fail-connections=1"]) {
            bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            await #expect(throws: DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")) {
                _ = try await bus.call(device, BlueZNames.device, "Connect")
            }
            try await bus.connect(device)
            _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            #expect(try await bus.property("Connected", of: BlueZNames.device, at: device).boolValue == false)
        }
    }

    @Test func aSlowDeviceConnectsAfterItsDelayAndDisconnectCancelsThePendingConnect() async throws {
        try await withStandIn(devices: ["secure,connect_delay_ms=400"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            let start = ContinuousClock.now
            try await bus.connect(device)
            #expect(start.duration(to: .now) >= .milliseconds(400))
            _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            // Disconnect while the next Connect is pending: that Connect fails, as with bluetoothd.
            let pending = Task { try await bus.call(device, BlueZNames.device, "Connect") }
            try await Task.sleep(for: .milliseconds(100))
            _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            await #expect(throws: DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")) {
                _ = try await pending.value
            }
            #expect(try await bus.property("Connected", of: BlueZNames.device, at: device).boolValue == false)
        }
    }

    @Test func fiftyConnectionsWithAcquiredSocketsLeaveNoDescriptorThreadOrProcessBehind() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10")
            try await bus.connect(device)
            _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            try await Task.sleep(for: .milliseconds(50))
            let before = ProcessResources.current()
            for _ in 0..<50 {
                try await bus.connect(device)
                let characteristics = try await bus.characteristics(of: device)
                let controlPoint = try #require(characteristics[SecureDFUByHand.controlPoint])
                let packet = try #require(characteristics[SecureDFUByHand.packet])
                let notify = try await bus.call(
                    controlPoint, BlueZNames.gattCharacteristic, "AcquireNotify", [Self.noOptions])
                let write = try await bus.call(packet, BlueZNames.gattCharacteristic, "AcquireWrite", [Self.noOptions])
                notify.first?.fileDescriptorValue?.close()
                write.first?.fileDescriptorValue?.close()
                _ = try await bus.call(device, BlueZNames.device, "Disconnect")
            }
            // The counts cover the whole test process, where other suites (imgtool's children, the
            // client suites' pipes) come and go at the same time: a small slack is allowed, a leak per
            // connection (50 of them) never comes back within it.
            let slack = 6
            var now = ProcessResources.current()
            do {
                try await bus.waitUntil("descriptors, threads and children settle") {
                    now = ProcessResources.current()
                    return now.openFileDescriptors <= before.openFileDescriptors + slack
                        && now.threads <= before.threads + slack && now.children <= before.children + slack
                }
            } catch {
                Issue.record("\(before) → \(now)")
                throw error
            }
        }
    }
}
