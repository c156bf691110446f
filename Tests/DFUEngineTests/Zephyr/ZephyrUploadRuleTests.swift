import CBOR
import DFUCore
import DFUCrypto
import DFUSimulator
import Testing

/// The image upload rules of Zephyr's image group, each as `img_mgmt_upload` (`subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt.c`)
/// and `img_mgmt_upload_inspect` (`zephyr_img_mgmt.c`) enforce them.
@Suite struct ZephyrUploadRuleTests {
    private func firstChunk(_ image: [UInt8], length: Int?, sha: [UInt8]? = nil, count: Int = 400) -> SMPRequest {
        .upload(SMPUploadChunk(length: length, offset: 0, sha: sha, data: Array(image.prefix(count))))
    }

    @Test func aWholeUploadEndsAtTheImageLengthWithMatchTrue() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        let last = try device.upload(image)
        // IMG_ENABLE_IMAGE_CHECK: the last answer carries `match`, the slot's SHA-256 against the request's sha.
        #expect(last == .upload(offset: image.count, match: true))
    }

    @Test func theSlotListsTheImagesSHA256TLVNotTheFileHash() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        _ = try device.upload(image)
        let secondary = try #require(try device.state().first { $0.slot == 1 })
        // img_mgmt_state_encode_slot: "hash" is the image's SHA256 TLV (img_mgmt_read_info).
        #expect(secondary.hash == tlvHash(image))
        #expect(secondary.hash != SHA256.digest(image))
        #expect(secondary.version == "2.0.0")
        #expect(!secondary.pending && !secondary.confirmed && !secondary.active)
    }

    @Test func aShaThatIsNotTheFilesGivesMatchFalse() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        let last = try device.upload(image, sha: [UInt8](repeating: 0x11, count: 32))
        #expect(last == .upload(offset: image.count, match: false))
    }

    @Test func aFirstChunkWithoutLenIsInvalidLength() throws {
        var device = ZephyrTargetHarness()
        let answer = try device.send(firstChunk(zephyrImage(2), length: nil))
        #expect(answer == .failure(.image(.invalidLength)))
    }

    @Test func aFirstChunkShorterThanTheImageHeaderIsRefused() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        // `req->img_data.len < sizeof(struct image_header)`: IMG_MGMT_ERR_INVALID_IMAGE_HEADER (22).
        let answer = try device.send(firstChunk(image, length: image.count, count: 31))
        #expect(answer == .failure(.image(SMPImageError(rawValue: 22))))
    }

    @Test func aFirstChunkWithoutMCUbootsMagicIsRefused() throws {
        var device = ZephyrTargetHarness()
        var image = zephyrImage(2)
        image[0] ^= 0xFF
        // `hdr->ih_magic != IMAGE_MAGIC`: IMG_MGMT_ERR_INVALID_IMAGE_HEADER_MAGIC (23).
        let answer = try device.send(firstChunk(image, length: image.count))
        #expect(answer == .failure(.image(SMPImageError(rawValue: 23))))
    }

    @Test func aShaLongerThan32BytesIsInvalidHash() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        let answer = try device.send(firstChunk(image, length: image.count, sha: [UInt8](repeating: 1, count: 33)))
        #expect(answer == .failure(.image(.invalidHash)))
    }

    @Test func aLengthAboveTheSlotIsImageTooLarge() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.images = [.init(slotSize: 16 * 1024)]
        var device = ZephyrTargetHarness(configuration)
        let image = zephyrImage(2)
        let answer = try device.send(firstChunk(image, length: image.count))
        #expect(answer == .failure(.image(.imageTooLarge)))
    }

    @Test func aWrongOffsetIsAnsweredWithTheExpectedOneAndNothingIsWritten() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        _ = try device.send(firstChunk(image, length: image.count, count: 400))
        // "Invalid offset. Drop the data, and respond with the offset we're expecting": rc OK, off 400.
        let answer = try device.send(.upload(SMPUploadChunk(offset: 1000, data: Array(image[1000..<1200]))))
        #expect(answer == .upload(offset: 400, match: nil))
        let next = try device.send(.upload(SMPUploadChunk(offset: 400, data: Array(image[400..<800]))))
        #expect(next == .upload(offset: 800, match: nil))
    }

    @Test func dataPastTheAnnouncedLengthIsDataOverrun() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2, body: 1000)
        _ = try device.send(firstChunk(image, length: 600, count: 400))
        let answer = try device.send(.upload(SMPUploadChunk(offset: 400, data: Array(image[400..<700]))))
        #expect(answer == .failure(.image(.dataOverrun)))
    }

    @Test func theSameShaResumesAtTheOffsetReachedAndAnotherStartsOver() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        let sha = SHA256.digest(image)
        _ = try device.upload(image, sha: sha, stopAfter: 5000)
        // `img_mgmt_upload_inspect`: a first chunk with the sha of the upload in progress is answered with its
        // offset; the data is not written again.
        let resumed = try device.send(firstChunk(image, length: image.count, sha: sha))
        guard case .upload(let offset?, nil) = resumed else { throw Failure.unexpected("\(resumed)") }
        #expect(offset >= 5000)
        let other = try device.send(firstChunk(image, length: image.count, sha: [UInt8](repeating: 7, count: 32)))
        #expect(other == .upload(offset: 400, match: nil))
    }

    @Test func theUploadStateSurvivesALinkLossAndResumes() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        let sha = SHA256.digest(image)
        _ = try device.upload(image, sha: sha, stopAfter: 5000)
        var context = SimulatedContext(now: device.now, subscribed: [], isBonded: false, storage: SimulatedStorage())
        device.target.connectionDropped(context: &context)
        let resumed = try device.send(firstChunk(image, length: image.count, sha: sha))
        guard case .upload(let offset?, _) = resumed else { throw Failure.unexpected("\(resumed)") }
        #expect(offset >= 5000)
    }

    @Test func anUpgradeOnlyUploadOfAnOlderVersionIsRefused() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.images = [.init(slotSize: 0x7_6000, initialVersion: (3, 0, 0, 0))]
        var device = ZephyrTargetHarness(configuration)
        let image = zephyrImage(2)
        let request = SMPRequest.upload(SMPUploadChunk(length: image.count, offset: 0, data: Array(image.prefix(400)), upgrade: true))
        #expect(try device.send(request) == .failure(.image(.currentVersionIsNewer)))
    }

    @Test func aChunkWithoutAnOffsetIsInvalidOffset() throws {
        var device = ZephyrTargetHarness()
        let frame = try SMPFrame(operation: .write, group: .image, command: 1, sequence: 9, body: .map(["data": .bytes([1, 2])]))
        let answers = try device.answers(to: [frame.bytes])
        #expect(try SMPResponse(frame: #require(answers.first), answering: .upload) == .failure(.image(.invalidOffset)))
    }

    @Test func anSMPVersion1ClientGetsTheTranslatedManagementError() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        // img_mgmt_translate_error_code: INVALID_LENGTH → MGMT_ERR_EINVAL (3), as `{"rc": 3}`.
        let answer = try device.send(firstChunk(image, length: nil), version: .version1)
        guard case .failure(.management(let error, _)) = answer else { throw Failure.unexpected("\(answer)") }
        #expect(error == .invalidValue)
    }

    enum Failure: Error { case unexpected(String) }
}
