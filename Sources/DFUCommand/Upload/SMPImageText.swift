import DFUCore

/// What the result and interrupt lines and `--json` say of the images of an SMP upload: where each stands
/// (``SMPImageState``, as the engine learnt it) and the command that takes the device on from there.
enum SMPImageText {
    /// The name `parts_sent` gives an image: `application` for image 0 (the application, or an nRF5340's
    /// application core), `image_N` for the others.
    static func partName(_ image: Int) -> String { image == 0 ? "application" : "image_\(image)" }

    /// Where an image in `state` stands, e.g. "marked for test, not running yet: ...".
    static func phrase(_ state: SMPImageState) -> String {
        switch state {
        case .notUploaded: "not uploaded"
        case .uploaded: "uploaded, not marked (MCUboot leaves it in the secondary slot at a reset)"
        case .markedTest: "marked for test, not running yet: it runs after the next reset and is reverted at the reset after "
            + "that unless confirmed"
        case .markedConfirm: "confirmed, not running yet: it runs from the next reset on"
        case .resetTest: "marked for test and the device was reset to swap it in: unless MCUboot refused it, it runs in test "
            + "mode and is reverted at the next reset unless confirmed"
        case .resetConfirm: "confirmed and the device was reset to swap it in for good"
        case .runningTest: "running in test mode: reverted at the next reset unless confirmed"
        case .confirmed: "running, confirmed"
        case .writtenByLoader: "written by the firmware loader into the application slot: MCUboot starts it at the next "
            + "reset if it passes its check"
        }
    }

    /// The images grouped by state, e.g. "image 0: running, confirmed" or "images 0, 1: marked for test, ...".
    static func describe(_ images: [SMPImageReport]) -> String {
        var groups: [(numbers: [Int], state: SMPImageState)] = []
        for image in images {
            if let index = groups.firstIndex(where: { $0.state == image.state }) {
                groups[index].numbers.append(image.image)
            } else {
                groups.append(([image.image], image.state))
            }
        }
        return groups.map { group in
            let label = group.numbers.count == 1 ? "image \(group.numbers[0])"
                : "images " + group.numbers.map(String.init).joined(separator: ", ")
            return "\(label): \(phrase(group.state))"
        }.joined(separator: "; ")
    }

    /// The command that takes the device on from where its images stand (`device` as named on the command line),
    /// or nil when nothing is left: the same upload again while an image is not on the device or not marked,
    /// `dfu reset` while one waits for its reset, `dfu confirm` while one runs (or may run) in test mode.
    static func next(_ images: [SMPImageReport], device: String) -> String? {
        if images.contains(where: { [.notUploaded, .uploaded, .writtenByLoader].contains($0.state) }) {
            return "the same command again"
        }
        if images.contains(where: { $0.state == .markedTest || $0.state == .markedConfirm }) { return "dfu reset -d \(device)" }
        let testing = images.filter { $0.state == .resetTest || $0.state == .runningTest }
        guard !testing.isEmpty else { return nil }
        return testing.map { "dfu confirm -d \(device)" + ($0.image == 0 ? "" : " --image \($0.image)") }.joined(separator: " && ")
    }

    /// Whether anything was changed on the device beyond upload bytes: an image marked, reset into, or confirmed.
    static func changedBeyondUpload(_ images: [SMPImageReport]?) -> Bool {
        images?.contains { $0.state != .notUploaded && $0.state != .uploaded } ?? false
    }
}
