import DFUCore
import DFUCrypto
import DFUSimulator
import Testing

/// Test, confirm and revert across resets: Zephyr's image state (`img_mgmt_state.c`: `img_mgmt_state_read`,
/// `img_mgmt_set_next_boot_slot`) over MCUboot's swap (mcu-tools/mcuboot `docs/design.md`, "Swap Types").
@Suite struct ZephyrSwapTests {
    private func uploaded(_ image: [UInt8], _ configuration: ZephyrTargetConfiguration = ZephyrTargetConfiguration())
        throws -> ZephyrTargetHarness {
        var device = ZephyrTargetHarness(configuration)
        _ = try device.upload(image)
        return device
    }

    private func running(_ device: inout ZephyrTargetHarness, image: Int = 0) throws -> SMPImageSlotState {
        try #require(try device.state().first { $0.image == image && $0.slot == 0 })
    }

    @Test func aTestedImageRunsOnceUnconfirmedAndIsRevertedAtTheNextReset() throws {
        let image = zephyrImage(2)
        var device = try uploaded(image)
        let hash = try #require(tlvHash(image))
        guard case .imageState(let after) = try device.send(.test(hash: hash)) else { throw Failure.noState }
        // img_mgmt_state_read, NEXT_BOOT_TYPE_TEST: the secondary is pending, not permanent.
        #expect(after.first { $0.slot == 1 }.map { $0.pending && !$0.permanent } == true)
        try device.reset()
        var now = try running(&device)
        #expect(now.version == "2.0.0" && now.hash == hash)
        // NEXT_BOOT_TYPE_REVERT: the running image is not confirmed; the old one (slot 1) is.
        #expect(!now.confirmed && now.active)
        #expect(try device.state().first { $0.slot == 1 }?.confirmed == true)
        try device.reset()
        now = try running(&device)
        #expect(now.version == "1.0.0" && now.confirmed)
    }

    @Test func aTestedImageConfirmedAfterTheResetStays() throws {
        let image = zephyrImage(2)
        var device = try uploaded(image)
        _ = try device.send(.test(hash: try #require(tlvHash(image))))
        try device.reset()
        guard case .imageState = try device.send(.confirm(hash: nil)) else { throw Failure.noState }
        #expect(try running(&device).confirmed)
        try device.reset()
        let now = try running(&device)
        #expect(now.version == "2.0.0" && now.confirmed)
    }

    @Test func confirmingTheSecondaryByHashMakesAPermanentSwap() throws {
        let image = zephyrImage(2)
        var device = try uploaded(image)
        let hash = try #require(tlvHash(image))
        guard case .imageState(let after) = try device.send(.confirm(hash: hash)) else {
            throw Failure.noState
        }
        #expect(after.first { $0.slot == 1 }.map { $0.pending && $0.permanent } == true)
        try device.reset()
        #expect(try running(&device).version == "2.0.0")
        #expect(try running(&device).confirmed)
    }

    @Test func testingTheActiveSlotIsDenied() throws {
        var device = ZephyrTargetHarness()
        let active = try running(&device)
        #expect(try device.send(.test(hash: try #require(active.hash))) == .failure(.image(.testOfActiveDenied)))
    }

    @Test func anUnknownHashIsHashNotFound() throws {
        var device = ZephyrTargetHarness()
        #expect(try device.send(.test(hash: [UInt8](repeating: 3, count: 32))) == .failure(.image(SMPImageError(rawValue: 8))))
    }

    @Test func anUploadIsRefusedWhileTheSecondaryIsPending() throws {
        let image = zephyrImage(2)
        var device = try uploaded(image)
        _ = try device.send(.test(hash: try #require(tlvHash(image))))
        // img_mgmt_slot_in_use: a slot set for test is in use, so img_mgmt_get_unused_slot_area_id finds none.
        let other = zephyrImage(3)
        let request = SMPRequest.upload(SMPUploadChunk(length: other.count, offset: 0, sha: SHA256.digest(other), data: Array(other.prefix(400))))
        #expect(try device.send(request) == .failure(.image(.noFreeSlot)))
    }

    @Test func anUploadIsRefusedWhileATestedImageIsUnconfirmed() throws {
        let image = zephyrImage(2)
        var device = try uploaded(image)
        _ = try device.send(.test(hash: try #require(tlvHash(image))))
        try device.reset()
        let other = zephyrImage(3)
        let request = SMPRequest.upload(SMPUploadChunk(length: other.count, offset: 0, data: Array(other.prefix(400))))
        #expect(try device.send(request) == .failure(.image(.noFreeSlot)))
    }

    @Test(.enabled(if: MCUbootImages.isPresent, "needs Tests/Fixtures/mcuboot"))
    func anImageSignedWithTheConfiguredKeyIsSwappedIn() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.verifyingKey = try MCUbootImages.key("ecdsa-p256")
        let image = try MCUbootImages.image("ecdsa-p256.bin")
        var device = try uploaded(image, configuration)
        _ = try device.send(.test(hash: try #require(tlvHash(image))))
        try device.reset()
        #expect(try running(&device).hash == tlvHash(image))
    }

    @Test(.enabled(if: MCUbootImages.isPresent, "needs Tests/Fixtures/mcuboot"),
          arguments: ["tampered-signature.bin", "ed25519.bin", "unsigned.bin", "tampered-body.bin"])
    func anImageMCUbootDoesNotValidateIsErasedAndTheOldImageRuns(name: String) throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.verifyingKey = try MCUbootImages.key("ecdsa-p256")
        let image = try MCUbootImages.image(name)
        var device = try uploaded(image, configuration)
        _ = try device.send(.test(hash: try #require(tlvHash(image))))
        try device.reset()
        // boot_validate_slot: an invalid secondary is erased; the primary runs on, confirmed.
        let state = try device.state()
        #expect(state.count == 1)
        #expect(state.first?.version == "1.0.0" && state.first?.confirmed == true)
    }

    @Test func theNetworkCoreImageIsCopiedOverWithoutRevert() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.images = [.init(slotSize: 0x7_0000), .init(slotSize: 0x4_0000, revertible: false)]
        let net = zephyrImage(5, body: 30_000, seed: 9)
        var device = ZephyrTargetHarness(configuration)
        _ = try device.upload(net, imageIndex: 1)
        _ = try device.send(.test(hash: try #require(tlvHash(net))))
        try device.reset()
        #expect(try running(&device, image: 1).version == "5.0.0")
        try device.reset()
        // Overwrite-only keeps no copy: the second reset does not bring the old image back.
        #expect(try running(&device, image: 1).version == "5.0.0")
        #expect(try device.state().filter { $0.image == 1 }.count == 1)
    }

    @Test func bothImagesOfAMultiImageUpdateSwapAtOneReset() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.images = [.init(slotSize: 0x7_0000), .init(slotSize: 0x4_0000, revertible: false)]
        let app = zephyrImage(2, seed: 4)
        let net = zephyrImage(5, body: 30_000, seed: 9)
        var device = ZephyrTargetHarness(configuration)
        _ = try device.upload(app, imageIndex: 0)
        _ = try device.upload(net, imageIndex: 1)
        _ = try device.send(.test(hash: try #require(tlvHash(app))))
        _ = try device.send(.test(hash: try #require(tlvHash(net))))
        try device.reset()
        #expect(try running(&device, image: 0).version == "2.0.0")
        #expect(try running(&device, image: 1).version == "5.0.0")
    }

    /// Nordic known issue NCSDK-34106 (nRF Connect SDK 2.6.0–3.4.0, nRF5340): the application core image marked before
    /// the network core image makes MCUboot skip the network core update.
    @Test(arguments: [false, true])
    func onAnNRF5340TheNetworkCoreIsUpdatedOnlyWhenMarkedBeforeTheApplicationCore(_ networkCoreFirst: Bool) throws {
        let app = zephyrImage(2, seed: 4)
        let net = zephyrImage(5, body: 30_000, seed: 9)
        var device = ZephyrTargetHarness(.nrf5340)
        _ = try device.upload(app, imageIndex: 0)
        _ = try device.upload(net, imageIndex: 1)
        let marks = [try #require(tlvHash(net)), try #require(tlvHash(app))]
        for hash in networkCoreFirst ? marks : marks.reversed() { _ = try device.send(.test(hash: hash)) }
        try device.reset()
        #expect(try running(&device, image: 0).version == "2.0.0")
        #expect(try running(&device, image: 1).version == (networkCoreFirst ? "5.0.0" : "1.0.0"))
    }

    enum Failure: Error { case noState }
}
