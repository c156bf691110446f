import DFUCore
import Testing

@Suite struct FlashPacerTests {
    /// Round figures: 2 buffers, 100 ms erase, 1 ms per word (so a 4-byte packet takes 1 ms), no bank
    /// preparation, no arrival allowance.
    static func pacing(buffers: Int = 2) -> FlashPacing {
        var pacing = FlashPacing()
        pacing.receiveBuffers = buffers
        pacing.pageErase = .milliseconds(100)
        pacing.wordWrite = .milliseconds(1)
        pacing.bankPreparation = .zero
        pacing.arrivalAllowance = .zero
        return pacing
    }

    @Test func writesAtOnceWhileBuffersAreFree() {
        var pacer = FlashPacer(pacing: Self.pacing(), bankPrepared: true)
        #expect(pacer.earliestWrite(at: .zero) == .zero)
        pacer.packetWritten(bytes: 4, at: .zero)  // flash 0–1 ms
        #expect(pacer.earliestWrite(at: .zero) == .zero)
        #expect(pacer.busyBuffers(at: .zero) == 1)
    }

    @Test func holdsThePacketThatWouldFindEveryBufferBusyUntilTheFirstIsWritten() {
        var pacer = FlashPacer(pacing: Self.pacing(), bankPrepared: true)
        pacer.objectCreated(at: .zero)  // erase 0–100 ms
        pacer.packetWritten(bytes: 4, at: .milliseconds(1))  // written 100–101 ms
        pacer.packetWritten(bytes: 8, at: .milliseconds(2))  // written 101–103 ms
        #expect(pacer.busyBuffers(at: .milliseconds(50)) == 2)
        #expect(pacer.earliestWrite(at: .milliseconds(3)) == .milliseconds(101))
        #expect(pacer.earliestWrite(at: .milliseconds(102)) == .milliseconds(102))
    }

    @Test func freeBuffersCountsWhatAPacketWrittenNowFindsAndNeverLessThanOneModelledBuffer() {
        var pacer = FlashPacer(pacing: Self.pacing(), bankPrepared: true)
        pacer.objectCreated(at: .zero)  // erase 0–100 ms
        #expect(pacer.freeBuffers(at: .zero) == 2)
        pacer.packetWritten(bytes: 4, at: .zero)  // written 100–101 ms
        #expect(pacer.freeBuffers(at: .zero) == 1)
        pacer.packetWritten(bytes: 4, at: .zero)  // written 101–102 ms
        #expect(pacer.freeBuffers(at: .milliseconds(50)) == 0)
        #expect(pacer.freeBuffers(at: .milliseconds(101)) == 1)  // the first packet's buffer is free again
        // A model of no buffers lets one packet go at a time, as earliestWrite does.
        let none = FlashPacer(pacing: Self.pacing(buffers: 0), bankPrepared: true)
        #expect(none.freeBuffers(at: .zero) == 1)
    }

    /// An answered data Execute means the bootloader's flash queue is empty (SDK 15–17): the model, which
    /// errs late, frees every buffer then.
    @Test func anAnsweredExecuteFreesEveryBuffer() {
        var pacer = FlashPacer(pacing: Self.pacing(), bankPrepared: true)
        pacer.objectCreated(at: .zero)  // erase 0–100 ms
        pacer.packetWritten(bytes: 4, at: .milliseconds(1))
        pacer.packetWritten(bytes: 4, at: .milliseconds(2))
        #expect(pacer.earliestWrite(at: .milliseconds(50)) == .milliseconds(101))
        pacer.flashIdle(at: .milliseconds(60))
        #expect(pacer.busyBuffers(at: .milliseconds(60)) == 0)
        #expect(pacer.earliestWrite(at: .milliseconds(60)) == .milliseconds(60))
        // The next Create's erase counts from the answer, not from the model's queue.
        pacer.objectCreated(at: .milliseconds(61))
        pacer.packetWritten(bytes: 4, at: .milliseconds(61))
        pacer.packetWritten(bytes: 4, at: .milliseconds(61))
        #expect(pacer.earliestWrite(at: .milliseconds(62)) == .milliseconds(162))
        // A slow-down now assumes twice the work queued since the answer (erase 100 ms + 2 × 1 ms, from 61 ms),
        // not since the first Create.
        pacer.slowDown(at: .milliseconds(62))
        #expect(pacer.earliestWrite(at: .milliseconds(62)) == .milliseconds(61 + 204))
    }

    @Test func aSenderThatMustWaitCanWaitForSeveralFreeBuffersAtOnce() {
        var pacer = FlashPacer(pacing: Self.pacing(buffers: 3), bankPrepared: true)
        pacer.objectCreated(at: .zero)  // erase 0–100 ms
        for _ in 0..<3 { pacer.packetWritten(bytes: 4, at: .zero) }  // written 100–101, 101–102, 102–103 ms
        #expect(pacer.earliestWrite(at: .zero, count: 1) == .milliseconds(101))
        #expect(pacer.earliestWrite(at: .zero, count: 2) == .milliseconds(102))
        #expect(pacer.earliestWrite(at: .zero, count: 9) == .milliseconds(103))
        // No waiting needed: the count does not matter.
        #expect(pacer.earliestWrite(at: .milliseconds(101), count: 3) == .milliseconds(101))
    }

    struct WakeCase: CustomTestStringConvertible, Sendable {
        let buffersPerWake: Int
        let pending: Int
        let nowMilliseconds: Int
        let wakeMilliseconds: Int
        var testDescription: String {
            "\(buffersPerWake) per wake, \(pending) pending at \(nowMilliseconds) ms → \(wakeMilliseconds) ms"
        }
    }

    /// Four buffers, all busy behind a 100 ms erase: written 100–101, 101–102, 102–103, 103–104 ms.
    @Test(arguments: [
        WakeCase(buffersPerWake: 2, pending: 10, nowMilliseconds: 0, wakeMilliseconds: 102),  // two buffers
        WakeCase(buffersPerWake: 2, pending: 1, nowMilliseconds: 0, wakeMilliseconds: 101),  // only one needed
        WakeCase(buffersPerWake: 4, pending: 3, nowMilliseconds: 0, wakeMilliseconds: 103),  // all pending ones
        WakeCase(buffersPerWake: 9, pending: 9, nowMilliseconds: 0, wakeMilliseconds: 104),  // at most every buffer
        WakeCase(buffersPerWake: 0, pending: 5, nowMilliseconds: 0, wakeMilliseconds: 101),  // nonsense counts as one
        WakeCase(buffersPerWake: 2, pending: 0, nowMilliseconds: 0, wakeMilliseconds: 101),
        WakeCase(buffersPerWake: 4, pending: 4, nowMilliseconds: 101, wakeMilliseconds: 101),  // one free: no wait
    ])
    func aSenderThatMustWaitWakesOnceForSeveralPackets(_ testCase: WakeCase) {
        var pacing = Self.pacing(buffers: 4)
        pacing.buffersPerWake = testCase.buffersPerWake
        var pacer = FlashPacer(pacing: pacing, bankPrepared: true)
        pacer.objectCreated(at: .zero)  // erase 0–100 ms
        for _ in 0..<4 { pacer.packetWritten(bytes: 4, at: .zero) }
        #expect(pacer.nextWrite(at: .milliseconds(testCase.nowMilliseconds), pending: testCase.pending)
                == .milliseconds(testCase.wakeMilliseconds))
    }

    @Test func theFirstCreateOfAConnectionAddsTheBankPreparation() {
        var pacing = Self.pacing(buffers: 1)
        pacing.bankPreparation = .milliseconds(300)
        var pacer = FlashPacer(pacing: pacing)
        pacer.objectCreated(at: .zero)  // preparation and erase 0–400 ms
        pacer.packetWritten(bytes: 4, at: .zero)  // 400–401 ms
        #expect(pacer.earliestWrite(at: .zero) == .milliseconds(401))
        pacer.objectCreated(at: .milliseconds(401))  // only the erase now: 401–501 ms
        pacer.packetWritten(bytes: 4, at: .milliseconds(401))  // 501–502 ms
        #expect(pacer.earliestWrite(at: .milliseconds(401)) == .milliseconds(502))
    }

    @Test func aPacketIsAssumedToArriveLateByTheAllowance() {
        var pacing = Self.pacing(buffers: 1)
        pacing.arrivalAllowance = .milliseconds(10)
        var pacer = FlashPacer(pacing: pacing, bankPrepared: true)
        pacer.packetWritten(bytes: 4, at: .zero)  // arrives by 10 ms, written by 11 ms
        #expect(pacer.earliestWrite(at: .zero) == .milliseconds(11))
    }

    @Test func afterASlowDownEveryBufferIsBusyUntilAllWorkSentSinceTheFirstCreateIsDoneAtTwiceTheTime() {
        var pacer = FlashPacer(pacing: Self.pacing(), bankPrepared: true)
        pacer.objectCreated(at: .zero)  // erase: 100 ms of work
        pacer.packetWritten(bytes: 4, at: .zero)  // 1 ms
        pacer.packetWritten(bytes: 4, at: .zero)  // 1 ms; the model is done at 102 ms
        pacer.slowDown(at: .milliseconds(150))
        #expect(pacer.slowdowns == 1)
        // 102 ms of work at twice the time since the Create at 0: busy until 204 ms.
        #expect(pacer.earliestWrite(at: .milliseconds(150)) == .milliseconds(204))
        pacer.packetWritten(bytes: 4, at: .milliseconds(204))  // now 2 ms per word
        pacer.packetWritten(bytes: 4, at: .milliseconds(204))
        #expect(pacer.earliestWrite(at: .milliseconds(204)) == .milliseconds(206))
    }

    @Test func slowDownsStopAtSixteenTimes() {
        var pacer = FlashPacer(pacing: Self.pacing(), slowdowns: 9)
        #expect(pacer.slowdowns == FlashPacer.maximumSlowdowns)
        pacer.slowDown(at: .zero)
        #expect(pacer.slowdowns == 4)
    }

    @Test func theDefaultsAreTheNRF52MaximaAndCoverNordicsFirstObjectDelay() {
        let pacing = FlashPacing()
        #expect(pacing.receiveBuffers == 17)
        #expect(pacing.pageErase == .milliseconds(85))
        #expect(pacing.wordWrite == .microseconds(41))
        #expect(pacing.bankPreparation + pacing.pageErase == .milliseconds(400))
        #expect(pacing.writeTime(bytes: 244) == .microseconds(41 * 61))
        #expect(pacing.writeTime(bytes: 5) == .microseconds(82))
        #expect(pacing.buffersPerWake == 12)
    }

    struct DelayCase: CustomTestStringConvertible, Sendable {
        let delayMilliseconds: Int
        let paced: Bool
        let waitedMilliseconds: Int
        var testDescription: String { "\(delayMilliseconds) ms, \(paced ? "paced" : "unpaced") → \(waitedMilliseconds) ms" }
    }

    /// The default 400 ms is exactly what the default pacer covers (315 ms preparation + 85 ms erase).
    @Test(arguments: [
        DelayCase(delayMilliseconds: 400, paced: true, waitedMilliseconds: 0),
        DelayCase(delayMilliseconds: 400, paced: false, waitedMilliseconds: 400),
        DelayCase(delayMilliseconds: 200, paced: true, waitedMilliseconds: 0),
        DelayCase(delayMilliseconds: 401, paced: true, waitedMilliseconds: 401),
        DelayCase(delayMilliseconds: 900, paced: true, waitedMilliseconds: 900),
        DelayCase(delayMilliseconds: 0, paced: false, waitedMilliseconds: 0),
    ])
    func theFirstObjectDelayIsWaivedOnlyWhenThePacerCoversIt(_ testCase: DelayCase) {
        var options = DFUOptions()
        options.firstObjectDelay = .milliseconds(testCase.delayMilliseconds)
        if !testCase.paced { options.flashPacing = nil }
        #expect(options.effectiveFirstObjectDelay == .milliseconds(testCase.waitedMilliseconds))
    }
}
