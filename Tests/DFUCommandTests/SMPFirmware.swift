import DFUCore
import DFUSimulator
import Foundation
import TestSupport
import DFUFormats

/// MCUboot images for the SMP command tests, written once to a temporary folder, and simulated
/// Zephyr/MCUboot devices to send them to.
enum SMPFirmware {
    /// A folder of this process's test images.
    static let folder: URL = {
        let url = TestScratch.root.appendingPathComponent("dfu-smp")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// A 60 000-byte body signed-image lookalike, version 2.0.0 (SHA256 TLV, no signature).
    static let imageBytes = SimulatedMCUbootImageBuilder(version: (2, 0, 0, 0)).image(bodySize: 60_000, seed: 21)
    /// Its SHA256 TLV in lower-case hex, as the image list shows it.
    static var imageHashHex: String {
        ((try? MCUbootImage(bytes: imageBytes, name: "app.bin").imageHash) ?? nil)?
            .map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined() ?? ""
    }

    /// `app_update.bin` holding ``imageBytes``.
    static let image: String = write(imageBytes, as: "app_update.bin")

    private static func write(_ bytes: [UInt8], as name: String) -> String {
        let url = folder.appendingPathComponent(name)
        try? Data(bytes).write(to: url)
        return url.path
    }

    /// An nRF52840 running Zephyr's SMP server over MCUboot, at `address`.
    static func device(_ address: String = SimulatedRig.firstAddress,
                       configure: (inout ZephyrTargetConfiguration) -> Void = { _ in }) -> SimulatedPeripheral {
        var configuration = ZephyrTargetConfiguration()
        configure(&configuration)
        let parsed = DFUDeviceAddress(address) ?? DFUDeviceAddress("00:00:00:00:00:01").unsafelyUnwrapped
        return SimulatedPeripheral(profile: .nrf52840Zephyr(address: parsed, configuration: configuration))
    }

    /// An nRF5340 (application core image 0, network core image 1), at `address`.
    static func nrf5340(_ address: String = SimulatedRig.firstAddress) -> SimulatedPeripheral {
        let parsed = DFUDeviceAddress(address) ?? DFUDeviceAddress("00:00:00:00:00:01").unsafelyUnwrapped
        return SimulatedPeripheral(profile: .nrf5340Zephyr(address: parsed))
    }

    /// The simulated target of a rig's device.
    static func target(_ rig: SimulatedRig, _ device: String = SimulatedRig.firstAddress) -> SimulatedZephyrTarget? {
        rig.transport(device)?.peripheral().firmware as? SimulatedZephyrTarget
    }

    /// Bytes written to a device's SMP characteristic.
    static func smpBytes(_ rig: SimulatedRig, _ device: String = SimulatedRig.firstAddress) -> Int {
        rig.writes(device, to: .smp).reduce(0) { $0 + $1.count }
    }
}
