import DBus
import DFUCore
import DFUSimStandIn
import DFUSimulator
import IOLoop

/// The central's link as bluetoothd reports it, the host's own disconnections and reboots, and the
/// report it writes.
extension PeripheralHost {
    func deviceChanged(_ change: DBusPropertiesChanged) {
        guard change.interface == names.device.rawValue, let adapter = registeredAdapter,
            change.path.rawValue.hasPrefix(BlueZNames.root + "/\(adapter)/"), let connected = change.changed["Connected"]?.boolValue
        else { return }
        centralConnected = connected
        if connected {
            central = change.path
            log("central connected: \(change.path)")
        } else if !isRebooting {
            log("central disconnected: \(change.path)")
            linkDropped()
            writeReport()
        }
    }

    func linkDropped() {
        processAcquiredPackets()
        linkLost = false
        disconnectRequested = false
        report.disconnections += 1
        var context = context()
        var firmware = peripheral.firmware
        firmware.connectionDropped(context: &context)
        peripheral.firmware = firmware
        peripheral.storage = context.storage
        report.violations += context.violations
        smpTraffic.linkDropped()
        subscribed = []
        closeSockets()
        if let layout {
            for characteristic in layout.characteristics where characteristic.canNotify {
                try? connection.setProperty(names.notifying, to: .boolean(false), interface: names.gattCharacteristic, at: characteristic.path)
            }
        }
    }

    /// Asks bluetoothd, once, to drop the link that is being lost on purpose, `delay` from now: long enough for
    /// the reply to the WriteValue call being answered to go out first (it is sent when the handler returns).
    func requestDisconnect(after delay: Duration, because reason: String) {
        guard linkLost, !disconnectRequested else { return }
        disconnectRequested = true
        log("asking bluetoothd to drop the link: \(reason)")
        Task(executorPreference: loop) { [self, loop] in
            if delay > .zero { await loop.sleep(until: .now + delay) }
            await disconnectCentral()
        }
    }

    /// The fallback when no Write Request came after the link was "lost": the central waits for something.
    func requestDisconnectIfStillLost(generation: Int) {
        guard generation == self.generation else { return }
        requestDisconnect(after: .zero, because: "no Write Request in 3 s")
    }

    /// Asks bluetoothd to drop the link to the central (Device1.Disconnect on our adapter's side).
    func disconnectCentral() async {
        guard let central, let disconnect = try? MemberName("Disconnect") else { return }
        do {
            _ = try await connection.call(
                destination: names.service, path: central, interface: names.device, member: disconnect)
        } catch {
            log("Disconnect of \(central) failed: \(error)")
        }
    }

    func reboot(into target: SimulatedBootTarget) async {
        log("reboot into \(target)")
        // A device that resets advertises no more: Nordic's buttonless example turns off advertising on disconnect
        // before it drops its links to enter the bootloader (nRF5 SDK, examples/ble_peripheral/
        // ble_app_buttonless_dfu/main.c, `ble_dfu_evt_handler`, BLE_DFU_EVT_BOOTLOADER_ENTER_PREPARE). Here the
        // kernel would start the old role's advertising again as soon as the link is down (net/bluetooth/
        // hci_event.c `hci_disconn_complete_evt` re-enables advertising; btmon in the VM: LE Set Advertise Enable
        // 45 ms after the disconnection, Remove Advertising 120 ms later), and a scan meanwhile would hear a role
        // that is going away. So the advertisement goes first, then the link.
        await withdrawAdvertisement()
        await disconnectCentral()
        linkDropped()
        central = nil
        centralConnected = false
        await unregister()
        peripheral.boot(into: target, at: elapsed)
        isRebooting = false
        do {
            try await registerCurrentRole()
        } catch {
            log("error: \(error)")
        }
    }

    // MARK: Report

    func writeReport() {
        guard let path = configuration.reportPath else { return }
        report.update(storage: peripheral.storage)
        if let target = peripheral.firmware as? SimulatedZephyrTarget {
            report.updateSMP(target: target, traffic: smpTraffic)
        }
        do {
            try ReportFile.write(report, to: path)
        } catch {
            log("error: \(error)")
        }
    }
}
