/// The phase of an update, as shown to the user.
public enum DFUState: String, Sendable, Hashable, CaseIterable {
    /// Scanning for and connecting to the device.
    case connecting
    /// Switching an application into its bootloader.
    case enablingDFUMode
    /// Sending the init packet and preparing.
    case starting
    /// Sending firmware.
    case uploading
    /// The bootloader validates the image.
    case validating
    /// Waiting for the device to reset.
    case disconnecting
    /// SMP: marking the uploaded images for test (they swap in at the next reset, and are reverted at the one
    /// after unless confirmed).
    case markingForTest
    /// SMP: confirming images (marking them permanent before a reset, or keeping the ones running after it).
    case confirming
    /// SMP: asking the device to reset, so that MCUboot swaps in the marked images.
    case resetting
    /// SMP: the device reset; waiting for it to advertise again and connecting to it.
    case waitingForDevice
    /// SMP: reading the device's image list to see where each image stands.
    case checkingImages
    /// Every part is on the device.
    case completed
    /// The update was cancelled.
    case aborted
}
