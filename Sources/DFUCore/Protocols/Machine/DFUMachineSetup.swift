public import DFUFormats
/// Everything a ``DFUProtocolMachine`` is made from: one value, the same for every protocol.
public struct DFUMachineSetup: Sendable {
    /// The part to send; nil when the machine only switches the device into its bootloader.
    public var part: FirmwarePart?
    /// The options of the update (PRN, timeouts, delays, attempts, pacing, resume).
    public var options: DFUOptions
    /// The device as connected (its endpoints and write length).
    public var peer: DFUPeer
    /// What the device runs, as the runner found it (with the Legacy DFU version, the buttonless variant).
    public var mode: DFUDeviceMode
    /// How many earlier machines for this part ended with ``DFUMachineOutcome/restart`` since the link was
    /// last lost.
    public var restarts: Int
    /// The name the bootloader should advertise after a buttonless jump, when the user or the runner chose one.
    public var alternativeName: String?
    /// The MCUboot images to send over SMP, and how the upload ends; nil for the nRF5 protocols.
    public var smpPlan: SMPUploadPlan?

    /// Makes a setup.
    public init(part: FirmwarePart?, options: DFUOptions, peer: DFUPeer, mode: DFUDeviceMode, restarts: Int = 0,
                alternativeName: String? = nil, smpPlan: SMPUploadPlan? = nil) {
        self.part = part
        self.options = options
        self.peer = peer
        self.mode = mode
        self.restarts = restarts
        self.alternativeName = alternativeName
        self.smpPlan = smpPlan
    }
}
