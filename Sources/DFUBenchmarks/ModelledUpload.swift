public import DFUCore
import DFUCrypto
public import DFUSimulator
public import DFUFormats

/// One upload of a synthetic application to a simulated Secure bootloader, in virtual time.
public struct ModelledUpload: Sendable {
    /// What one upload gave.
    public struct Outcome: Sendable, Hashable {
        /// Virtual time from the start of the scan to the reset into the new image.
        public var elapsed: Duration
        /// Packets the bootloader dropped because all its receive buffers were busy.
        public var lostPackets: Int
        /// Whether the engine lowered the PRN after a loss.
        public var fellBack: Bool
        /// Whether the device ended up with exactly the image sent.
        public var installed: Bool
    }

    /// The application image.
    public let image: [UInt8]
    /// Its init packet (SHA-256, unsigned).
    public let initPacket: [UInt8]

    /// A deterministic pseudo-random application of `size` bytes.
    public init(size: Int, seed: UInt32 = 1) {
        var state = seed &* 2_654_435_761 | 1
        image = (0..<size).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
        initPacket = SecureInitCommand(kind: .application, image: image, firmwareVersion: 2,
                                       hash: Array(SHA256.digest(image).reversed())).packet
    }

    /// The application as a package.
    public var package: DFUPackage {
        DFUPackage(format: .secure, parts: [FirmwarePart(kind: .application, image: image, initPacket: initPacket)])
    }

    /// A device in DFU mode with a stock SDK 15–17 Secure bootloader.
    public static func device(address: DFUDeviceAddress) -> SimulatedPeripheral {
        let profile = SimulatedDeviceProfile(address: address, bootloader: .secure(SecureBootloaderConfiguration()),
                                             application: .plain)
        return SimulatedPeripheral(profile: profile, startInBootloader: true)
    }

    /// The address every modelled device has.
    public static let address = DFUDeviceAddress(bytes: [0xC0, 0xFF, 0xEE, 0x00, 0x12, 0xFF])

    /// Runs the upload on `link` with `options`; throws the engine's error if it fails.
    public func run(link: LinkModel, options: DFUOptions) async throws(DFUError) -> Outcome {
        guard let address = Self.address else { throw .invalidPart(.application, reason: "no device address") }
        let transport = SimulatedTransport(peripherals: [Self.device(address: address)], link: link)
        let runner = DFURunner(transport: transport, clock: transport.clock, options: options)
        let report = try await runner.update(package, device: .address(transport.peripheral().address))
        let device = transport.peripheral()
        return Outcome(elapsed: report.elapsed, lostPackets: transport.packetsDroppedByTargets, fellBack: report.fellBackToPRN1,
                       installed: device.storage.application == image)
    }

    /// The model's lower bound for this upload.
    public func bound(link: LinkModel, prn: UInt16) -> SecureUploadBound {
        SecureUploadBound(link: link, imageSize: image.count, initPacketSize: initPacket.count, prn: Int(prn))
    }
}
