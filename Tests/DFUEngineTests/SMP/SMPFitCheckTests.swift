import CBOR
@testable import DFUCore
import Testing

/// Before its first write the upload machine checks that the images fit the server: the slot info (image command
/// 6) when it answers, otherwise the image numbers of its image list (issue 26, point 8).
@Suite struct SMPFitCheckTests {
    typealias Tests = SMPUploadMachineTests

    /// A slot info body as `img_mgmt_slot_info` writes it: per image, slot 0 and slot 1 (with `upload_image_id`).
    static func slotInfo(_ images: [(size: Int, max: Int?)]) -> CBOR {
        .map(["images": .array(images.enumerated().map { index, image in
            var entry: [CBOR.Entry] = [
                CBOR.Entry(.text("image"), .int(index)),
                CBOR.Entry(.text("slots"), .array([
                    .map(["slot": .int(0), "size": .int(image.size)]),
                    .map(["slot": .int(1), "size": .int(image.size), "upload_image_id": .int(index)]),
                ])),
            ]
            if let max = image.max { entry.append(CBOR.Entry(.text("max_image_size"), .int(max))) }
            return .map(entry)
        })])
    }

    @Test func anImageAboveMaxImageSizeIsRefusedBeforeAnyChunk() {
        let images = [Tests.image(5000, seed: 3)]
        let server = Tests.server(for: images)
        server.slotInfo = Self.slotInfo([(size: 8192, max: 4096)])
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .failed(.firmwareMismatch(reason: "image 0 is 5000 bytes; the device takes at most 4096 bytes "
            + "for image 0 (max_image_size); nothing was written")))
        #expect(run.uploadedBytes.isEmpty)
    }

    @Test func imagesThatFitTheSlotsSlotInfoListsAreUploaded() {
        let images = [Tests.image(3000, seed: 4), Tests.image(2000, seed: 5, number: 1)]
        let server = Tests.server(for: images)
        server.slotInfo = Self.slotInfo([(size: 4096, max: nil), (size: 4096, max: nil)])
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .completed, "\(run.result)")
    }

    @Test func aServerThatNeverAnswersSlotInfoIsJudgedByItsImageList() {
        // The image list's entries carry no `image` (a one-image build): image 1 has nowhere to go.
        let images = [Tests.image(3000, seed: 6), Tests.image(2000, seed: 7, number: 1)]
        let server = Tests.server(for: [images[0]])
        server.validImages[images[1].fileSHA256] = images[1].imageHash
        server.numbersImages = false
        server.slotInfoUnanswered = true
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .failed(.firmwareMismatch(reason: "the device has 1 image (its image list names no image "
            + "numbers, as a one-image build writes it; it answers no slot info); the package's image 1 (2000 bytes) has no "
            + "slot there; nothing was written")), "\(run.result)")
        #expect(run.uploadedBytes.isEmpty)
    }

    @Test func aListThatNumbersItsImagesIsNotRefusedForAnImageItDoesNotShow() {
        // A build of several images names them (an nRF5340's network core primary may not be listed): the server
        // itself refuses an image number without slots, so dfu does not guess; image 0 goes first.
        let images = [Tests.image(3000, seed: 9), Tests.image(2000, seed: 10, number: 1)]
        let server = Tests.server(for: [images[0]])
        server.validImages[images[1].fileSHA256] = images[1].imageHash
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        if case .failed(.firmwareMismatch) = run.result { Issue.record("refused: \(run.result)") }
        #expect(!run.uploadedBytes.isEmpty)
    }

    @Test func anEmptySlotInfoListFallsBackToTheImageList() {
        let images = [Tests.image(3000, seed: 8)]
        let server = Tests.server(for: images)
        server.slotInfo = .map(["images": .array([])])
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .completed, "\(run.result)")
    }
}
