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
    /// Every part is on the device.
    case completed
    /// The update was cancelled.
    case aborted
}
