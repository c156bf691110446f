import BlueZTransport
import DBus
import DFUSimStandIn
import Synchronization
import TestSupport
import Testing

/// bluetoothd before 5.86 frees an AcquireNotify session when its owner leaves the bus, and then uses it when it
/// handles the descriptor's hang-up (`src/gatt-client.c` `notify_client_disconnect`, then `sock_hup` →
/// `notify_io_destroy`): it segfaulted so in the VM at the end of an upload, the device reset and the client gone a
/// moment before. So a transport that closes leaves the bus only once bluetoothd says it took the descriptor back.
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(2)))) struct BlueZTransportCloseTests {
    @Test func closeLeavesTheBusOnlyAfterBluetoothdTookTheNotifyDescriptorBack() async throws {
        var options = StandInRig.Options()
        // The link goes down as the device resets after its last Execute; bluetoothd says NotifyAcquired = false
        // 400 ms later, as a busy one handling the hang-up late would.
        options.faults.lateNotifyRelease = .milliseconds(400)
        try await StandInRig.with([LiveRig.secureDevice()], options: options) { rig in
            // Every signal on one stream, so their order is the bus's.
            let signals = try await rig.reader.signals(matching: DBusMatchRule())
            let seen = Mutex<[String]>([])
            let watcher = Task {
                for await message in signals {
                    if let change = DBusPropertiesChanged(message), change.changed["NotifyAcquired"]?.boolValue == false {
                        seen.withLock { $0.append("NotifyAcquired false") }
                    } else if message.member?.rawValue == "NameOwnerChanged", message.arguments.count == 3,
                        message.arguments[2].stringValue == "", message.arguments[0].stringValue?.hasPrefix(":") == true
                    {
                        seen.withLock { $0.append("client left the bus") }
                        return
                    }
                }
            }
            let transport = try await BlueZTransport.open(busAddress: rig.address)
            _ = try await LiveRig.update(LiveRig.securePackage(size: 2_000), over: transport).get()
            await transport.close()
            // The watcher ends when it sees the transport's connection leave (the only client that leaves here), or
            // is cut short 5 s on.
            let bound = Task {
                try? await Task.sleep(for: TestTime.scaled(.seconds(5)))
                watcher.cancel()
            }
            await watcher.value
            bound.cancel()
            #expect(seen.withLock { $0 } == ["NotifyAcquired false", "client left the bus"])
        }
    }
}
