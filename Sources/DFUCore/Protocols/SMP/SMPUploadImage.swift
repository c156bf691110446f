internal import DFUCrypto

/// One MCUboot image to upload over SMP: its bytes as the file holds them, which image number
/// (slot pair) it goes to, and the image's own SHA256 TLV as MCUboot's image list shows it (taken
/// from the MCUboot image reader; this type parses nothing).
public struct SMPUploadImage: Sendable, Hashable {
    /// The image number: 0 for the application (or an nRF5340's application core), 1 for the second
    /// image (the network core).
    public var image: Int
    /// The signed image file, sent as it is.
    public var bytes: [UInt8]
    /// The image's SHA256 TLV: what the image list's `hash` shows and test/confirm name it by.
    public var imageHash: [UInt8]
    /// SHA-256 of the whole file: the upload's `sha`, which lets the server resume an interrupted
    /// upload of the same file (zephyr `smp_group_1.rst`, "Image upload request").
    public let fileSHA256: [UInt8]

    /// An image; the file's SHA-256 is computed here.
    public init(image: Int, bytes: [UInt8], imageHash: [UInt8]) {
        self.image = image
        self.bytes = bytes
        self.imageHash = imageHash
        fileSHA256 = SHA256.digest(bytes)
    }
}
