public import DFUFormats
/// Everything a ``DFUProtocolMachine`` is made from: one value, the same for every protocol.
public struct DFUMachineSetup: Sendable {
    /// What one machine is made to do: each protocol takes one of these, and is given only that one
    /// (another is a programming error in the runner, and traps).
    public enum Work: Sendable {
        /// Send one nRF5 part to a Secure or Legacy DFU bootloader.
        case sendPart(FirmwarePart)
        /// Switch an application into its bootloader (buttonless, or the Legacy jump); a buttonless one that can
        /// is asked to advertise `alternativeName` (nil: the bootloader keeps its own name).
        case enterBootloader(alternativeName: String?)
        /// Upload the plan's MCUboot images over SMP and end as the plan says.
        case uploadImages(SMPUploadPlan)
        /// One SMP management request, which the machine is made with.
        case manage
    }

    /// What the machine is to do.
    public var work: Work
    /// The options of the update (PRN, timeouts, delays, attempts, pacing, resume).
    public var options: DFUOptions
    /// The device as connected (its endpoints and write length).
    public var peer: DFUPeer
    /// What the device runs, as the runner found it (with the Legacy DFU version, the buttonless variant).
    public var mode: DFUDeviceMode
    /// How many earlier machines for this work ended with ``DFUMachineOutcome/restart`` since the link was
    /// last lost.
    public var restarts: Int
    /// Whether an earlier machine of this update reset the device into its MCUboot firmware loader (and the runner
    /// found it again), so that an application found now did not switch.
    public var enteredFirmwareLoader: Bool
    /// Whether the device was found at a fallback address where only a firmware loader is taken: anything else fails
    /// before the first write.
    public var requiresFirmwareLoader = false

    /// Makes a setup.
    public init(_ work: Work, options: DFUOptions, peer: DFUPeer, mode: DFUDeviceMode, restarts: Int = 0,
                enteredFirmwareLoader: Bool = false) {
        self.work = work
        self.options = options
        self.peer = peer
        self.mode = mode
        self.restarts = restarts
        self.enteredFirmwareLoader = enteredFirmwareLoader
    }

    /// The part to send, for the machines made for one; traps for any other work.
    func partToSend(by machine: String) -> FirmwarePart {
        guard case .sendPart(let part) = work else { preconditionFailure("\(machine) was made for \(work), not a part to send") }
        return part
    }
}
