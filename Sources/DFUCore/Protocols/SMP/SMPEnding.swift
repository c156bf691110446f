/// What happens after the images are uploaded (MCUboot's swap: an image marked for test runs once
/// and is reverted on the next reset unless confirmed; mcuboot `docs/design.md`, "Image swapping";
/// the marks are the image group's state write, `img_mgmt_state_write` in `img_mgmt_state.c`).
public enum SMPEnding: String, Sendable, Hashable, CaseIterable {
    /// Mark for test, reset, and confirm once the device runs the new image: an image that does not
    /// come up is reverted by MCUboot. The default.
    case testThenConfirm = "test"
    /// Confirm at once (permanent), then reset.
    case confirmThenReset = "confirm"
    /// Mark for test and leave the device running the old image until it is reset.
    case testWithoutReset = "test-no-reset"
    /// Confirm (permanent) and leave the device running the old image until it is reset.
    case confirmWithoutReset = "confirm-no-reset"

    /// Whether the images are confirmed when marked (rather than marked for test).
    public var confirmsAtOnce: Bool { self == .confirmThenReset || self == .confirmWithoutReset }

    /// Whether the device is reset after marking.
    public var resets: Bool { self == .testThenConfirm || self == .confirmThenReset }
}
