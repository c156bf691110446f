/// What the client assumes about a Secure bootloader's flash, to pace packet writes so that the
/// bootloader's receive buffers are never all busy (a packet arriving then is dropped silently).
///
/// The bootloader queues every flash operation: the page erase a data Create starts, then one
/// word write run per received packet, whose buffer is only freed when that write is done.
/// A link faster than the flash (2M PHY, short connection intervals, many packets per event) or
/// small packets arriving during a page erase fill the buffers within a few events. The defaults are
/// the nRF52 datasheet maxima, so a real device is never slower than the client believes.
public struct FlashPacing: Sendable, Hashable {
    /// Receive buffers the client may fill (SDK 15–17 has `4096 / 244 + 1 = 17`, whatever the MTU). Default 17:
    /// every time below is an upper bound, so the model never thinks a buffer free before it is.
    public var receiveBuffers = 17
    /// Erasing one page, started by each data Create (default 85 ms).
    public var pageErase: Duration = .milliseconds(85)
    /// Writing one 32-bit word (default 41 µs).
    public var wordWrite: Duration = .microseconds(41)
    /// Bank preparation after the first data Create on a connection (default 315 ms: with the first erase,
    /// the 400 ms Nordic's libraries wait before the first object's packets).
    public var bankPreparation: Duration = .milliseconds(315)
    /// How long after a write returns its packet may still reach the device (default 7.5 ms).
    public var arrivalAllowance: Duration = .microseconds(7500)

    /// How many free buffers a sender that has to wait waits for (default 12): it then wakes once for that
    /// many packets, while the other 5 still hold work for the flash (12 ms of 244-byte packets, on top of the
    /// arrival allowance every release time already includes), enough to cover the link's delay in refilling
    /// them. In the simulator's figure 1 any value from 4 to 17 gives the same upload times within 0.2 %;
    /// fewer wake-ups cost the host less CPU.
    public var buffersPerWake = 12

    /// The nRF52 defaults.
    public init() {}

    /// Time to write `bytes` bytes, rounded up to whole words.
    public func writeTime(bytes: Int) -> Duration { wordWrite * ((bytes + 3) / 4) }
}
