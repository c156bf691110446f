import CBOR
import DFUCore
import DFUSimulator
import Testing

/// The image group's erase (command 5, `img_mgmt_erase`) and slot info (command 6, `img_mgmt_slot_info`) in
/// zephyr `subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt.c`, and where an upload for another image number lands
/// (`img_mgmt_get_unused_slot_area_id` in `zephyr_img_mgmt.c`), as the simulated target answers them.
@Suite struct ZephyrEraseAndSlotInfoTests {
    // MARK: - Slot info

    @Test func aOneImageBuildAnswersSlotInfoNotSupportedAsKconfigLeavesItOff() throws {
        var device = ZephyrTargetHarness()
        // MCUMGR_GRP_IMG_SLOT_INFO: `default y if MCUMGR_GRP_IMG_UPDATABLE_IMAGE_NUMBER > 1`; no handler → MGMT_ERR_ENOTSUP.
        #expect(try device.send(.slotInfo) == .failure(.management(.notSupported, reason: nil)))
    }

    @Test func aTwoImageBuildListsEachImagesSlotsWithTheirSizesAndTheUploadTarget() throws {
        var device = ZephyrTargetHarness(.nrf5340)
        let expected: [SMPSlotInfo] = [
            SMPSlotInfo(image: 0, slots: [.init(slot: 0, size: 0x7_0000), .init(slot: 1, size: 0x7_0000, uploadImageID: 0)]),
            SMPSlotInfo(image: 1, slots: [.init(slot: 0, size: 0x4_0000), .init(slot: 1, size: 0x4_0000, uploadImageID: 1)]),
        ]
        #expect(try device.send(.slotInfo) == .slotInfo(expected))
    }

    @Test func slotInfoTurnedOnForOneImageListsImage0Only() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.slotInfo = true
        var device = ZephyrTargetHarness(configuration)
        let answer = try device.send(.slotInfo)
        #expect(answer == .slotInfo([SMPSlotInfo(image: 0, slots: [.init(slot: 0, size: 0x7_6000),
                                                                    .init(slot: 1, size: 0x7_6000, uploadImageID: 0)])]))
    }

    // MARK: - Another image number

    @Test func aOneImageBuildWritesAnUploadForImage1IntoImage0sSecondarySlot() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        // UPDATABLE_IMAGE_NUMBER == 1: `img_mgmt_get_unused_slot_area_id(slot)` ignores the number and picks slot 1.
        #expect(try device.upload(image, imageIndex: 1) == .upload(offset: image.count, match: true))
        let secondary = try #require(try device.state().first { $0.slot == 1 })
        #expect(secondary.image == 0)
        #expect(secondary.hash == tlvHash(image))
    }

    @Test func aTwoImageBuildRefusesAnImageNumberWithoutPartitionsAsNoFreeSlot() throws {
        var device = ZephyrTargetHarness(.nrf5340)
        let image = zephyrImage(2)
        let request = SMPRequest.upload(SMPUploadChunk(image: 2, length: image.count, offset: 0, data: Array(image.prefix(400))))
        #expect(try device.send(request) == .failure(.image(.noFreeSlot)))
    }

    // MARK: - Erase

    @Test func eraseWithoutASlotErasesTheSecondaryAndAnswersAnEmptyMap() throws {
        var device = ZephyrTargetHarness()
        _ = try device.upload(zephyrImage(2))
        #expect(try device.state().contains { $0.slot == 1 })
        #expect(try device.send(.erase(slot: nil)) == .erase)
        #expect(try device.state().map(\.slot) == [0])
        #expect(device.target.slots[0].secondaryBlank)
    }

    @Test func erasingTheRunningSlotIsNoFreeSlot() throws {
        var device = ZephyrTargetHarness()
        // img_mgmt_erase: a readable image in a slot `img_mgmt_slot_in_use` (the active one) → IMG_MGMT_ERR_NO_FREE_SLOT.
        #expect(try device.send(.erase(slot: 0)) == .failure(.image(.noFreeSlot)))
    }

    @Test func erasingASecondaryMarkedForTestIsNoFreeSlot() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        _ = try device.upload(image)
        _ = try device.send(.test(hash: try #require(tlvHash(image))))
        // MCUMGR_GRP_IMG_ALLOW_ERASE_PENDING off (Zephyr 3.4's default): a pending slot is in use.
        #expect(try device.send(.erase(slot: 1)) == .failure(.image(.noFreeSlot)))
        #expect(try device.state().first { $0.slot == 1 }?.pending == true)
    }

    @Test func aSlotBeyondTheImagesIsInvalidSlot() throws {
        var device = ZephyrTargetHarness()
        // img_mgmt_erase_slot: no flash area for slot 3 → IMG_MGMT_ERR_INVALID_SLOT (14).
        #expect(try device.send(.erase(slot: 3)) == .failure(.image(SMPImageError(rawValue: 14))))
    }

    @Test func aSlotThatIsNoUnsignedIntegerIsInvalidArgument() throws {
        var device = ZephyrTargetHarness()
        // `{"slot": "1"}`: zcbor_map_decode_bulk fails → MGMT_ERR_EINVAL (3).
        let frame = try SMPFrame(operation: .write, group: .image, command: 5, sequence: 7, body: .map(["slot": .text("1")]))
        let answers = try device.answers(to: [frame.bytes])
        #expect(try SMPResponse(frame: #require(answers.first), answering: .erase) == .failure(.management(.invalidValue, reason: nil)))
    }

    @Test func eraseDropsTheUploadInProgress() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2)
        _ = try device.upload(image, stopAfter: 1)
        #expect(try device.send(.erase(slot: 1)) == .erase)
        // img_mgmt_reset_upload: a continuation finds no upload and is answered off 0.
        let next = SMPRequest.upload(SMPUploadChunk(offset: 2000, data: Array(image[2000..<2100])))
        #expect(try device.send(next) == .upload(offset: 0, match: nil))
    }

    @Test func theSecondImagesSecondaryIsSlot3() throws {
        var device = ZephyrTargetHarness(.nrf5340)
        _ = try device.upload(zephyrImage(2), imageIndex: 1)
        #expect(try device.state().contains { $0.image == 1 && $0.slot == 1 })
        #expect(try device.send(.erase(slot: 3)) == .erase)
        #expect(try !device.state().contains { $0.image == 1 && $0.slot == 1 })
    }
}
