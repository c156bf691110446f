import DFUCore

/// The options of `dfu upload` that only apply to MCUboot images sent over SMP (MCUmgr), validated
/// with the others before any file is read.
struct SMPSettings: Sendable, Hashable {
    /// How the upload ends: `--test` (the default) or `--confirm`, each with or without `--no-reset`.
    var ending: SMPEnding = .testThenConfirm
    /// `--image N`: the image number a lone image goes to (nil: 0).
    var image: Int?
    /// `--smp-window N`: upload requests in flight at once (nil: the device's buf_count − 2).
    var window: Int?
    /// `--smp-chunk BYTES`: the largest upload request frame (nil: the device's buf_size if it reassembles a frame
    /// written in pieces, otherwise one write; the upload asks the device).
    var frameSize: Int?
    /// `--firmware-loader`: the device updates through MCUboot's firmware loader although it does not say so (nil:
    /// when its bootloader info says so).
    var firmwareLoader: Bool?

    /// The options only an SMP upload takes.
    static let optionNames = ["confirm", "test", "no-reset", "image", "smp-window", "smp-chunk", "firmware-loader"]

    /// The option specs, after the shared ones of `dfu upload`.
    static let options: [OptionSpec] = [
        .flag("test", help: "MCUboot: mark the images for test, reset, confirm once they run (the default)"),
        .flag("confirm", help: "MCUboot: confirm the images at once (permanent), then reset"),
        .flag("no-reset", help: "MCUboot: mark the images but do not reset; they swap in at the next reset"),
        .value("image", "N", help: "MCUboot: the image number a lone image goes to (1 = nRF5340 network core)", default: "0"),
        .value("smp-window", "N", help: "MCUboot: upload requests in flight at once (default: the device's buf_count - 2)"),
        .value("smp-chunk", "BYTES", help: "MCUboot: largest upload request, SMP header included (default: the device's buf_size if it reassembles, else one write)"),
        .flag("firmware-loader", help: "MCUboot: the device updates through MCUboot's firmware loader (default: when its bootloader info says so); "
            + "the loader writes the one application slot, so --test, --confirm and --no-reset do not apply"),
    ]

    /// The defaults.
    init() {}

    /// Reads the SMP options.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        let confirm = arguments.flag("confirm")
        if confirm && arguments.flag("test") {
            throw UsageError("options --test and --confirm exclude each other", command: arguments.command)
        }
        switch (confirm, arguments.flag("no-reset")) {
        case (false, false): ending = .testThenConfirm
        case (true, false): ending = .confirmThenReset
        case (false, true): ending = .testWithoutReset
        case (true, true): ending = .confirmWithoutReset
        }
        image = try arguments.integer("image", in: 0...15)
        window = try arguments.integer("smp-window", in: 1...64)
        // A smaller frame cannot carry the first chunk with the image header: refused here, not after connecting.
        // The smallest is worked out (a CBOR encoding) only when the option is given.
        frameSize = arguments.value("smp-chunk") == nil ? nil
            : try arguments.integer("smp-chunk", in: SMPUploadChunk.smallestFirstFrame...65535)
        firmwareLoader = arguments.flag("firmware-loader") ? true : nil
    }
}
