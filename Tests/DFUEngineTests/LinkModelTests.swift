import DFUCore
import DFUSimulator
import Testing
import DFUFormats

@Suite struct LinkModelTests {
    @Test func exchangeOfAFullPacketAt1MTakesAbout2Point5Milliseconds() {
        // 244-byte write: ATT 3 + L2CAP 4 → 251-byte LL payload; + preamble 1, access address 4, header 2, CRC 3
        // = 261 bytes × 8 µs = 2088 µs; T_IFS 150 + empty PDU 10 bytes × 8 = 80 + T_IFS 150 → 2468 µs.
        var link = LinkModel()
        #expect(link.exchangeTime(attPayload: 244) == .microseconds(2468))
        #expect(link.fullPacketsPerEvent == 5)
        // At 2M: (2 + 4 + 2 + 251 + 3) × 4 = 1048; + 150 + 11 × 4 = 44 + 150 → 1392 µs; 9 fit in 13.75 ms.
        link.phy = .le2M
        #expect(link.exchangeTime(attPayload: 244) == .microseconds(1392))
        #expect(link.fullPacketsPerEvent == 9)
        link.packetsPerEvent = 4
        #expect(link.fullPacketsPerEvent == 4)
    }

    @Test func writesLongerThanTheDataLengthAreSplit() {
        let link = LinkModel()
        #expect(link.exchangeTime(attPayload: 500) > link.exchangeTime(attPayload: 244) * 2)
    }

    @Test func virtualClockSleepsWithoutWaiting() async throws {
        let clock = VirtualClock()
        try await clock.sleep(for: .seconds(3600))
        #expect(clock.now.offset == .seconds(3600))
        clock.advance(to: .seconds(10))
        #expect(clock.elapsed == .seconds(3600))
    }

    @Test func packetsPerEventCapSlowsTheUpload() async throws {
        var fast = LinkModel()
        fast.flash.pageErase = .zero
        fast.flash.wordWrite = .zero
        var capped = fast
        capped.packetsPerEvent = 1
        var times: [Duration] = []
        for link in [fast, capped] {
            let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
            let report = try await Fixtures.run(DFUPackage(format: .secure, parts: [Fixtures.securePart(size: 16_384)]),
                                                on: transport, options: Fixtures.options(prn: 0)).get()
            times.append(report.elapsed)
        }
        #expect(times[0] < times[1])
    }

    @Test(arguments: [(247, 244), (185, 180), (23, 20), (24, 20)])
    func securePacketSizeIsTheWriteLengthRoundedDownToWords(_ pair: (Int, Int)) {
        #expect(DFUOptions().securePacketSize(maximumWriteLength: pair.0 - 3) == pair.1)
    }

    @Test func packetSizeCapLimitsTheSecurePacket() {
        var options = DFUOptions()
        options.packetSizeCap = 100
        #expect(options.securePacketSize(maximumWriteLength: 244) == 100)
        options.packetSizeCap = 99
        #expect(options.securePacketSize(maximumWriteLength: 244) == 96)
    }

    @Test func defaultsAreThoseOfNordicsLibraries() {
        let options = DFUOptions()
        #expect(options.packetReceiptNotifications == 12)
        #expect(options.firstObjectDelay == .milliseconds(400))
        #expect(options.objectDelay == .zero)
        #expect(options.alternativeName == .random)
        #expect(options.resume && !options.forceDFU && !options.experimentalButtonless)
        #expect(options.scope == .all)
        #expect(options.objectAttempts == 3)
    }
}

extension LinkModelTests {
    @Test(arguments: [23, 100, 185, 247])
    func secureUploadFitsPacketsToTheMTU(mtu: Int) async throws {
        var link = LinkModel()
        link.mtu = mtu
        let part = Fixtures.securePart(size: 9_000)
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
        _ = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport).get()
        let installed = transport.peripheral().storage.application == part.image
        #expect(installed)
        let sizes = Set(transport.trace.compactMap { if case .write(.securePacket, let bytes) = $0.event { bytes.count } else { nil } })
        let expected = (mtu - 3) / 4 * 4
        #expect(sizes.max() == expected)
    }

    @Test func writesLongerThanTheMTUAreRefused() async throws {
        var link = LinkModel()
        link.mtu = 23
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()], link: link)
        _ = try await transport.connect(DFUConnectParameters(selector: .address(transport.peripheral().address),
                                                             scanTimeout: .seconds(1), connectTimeout: .seconds(1), uuids: DFUServiceUUIDs()))
        await #expect(throws: DFUTransportError.failed("a write of 21 bytes is longer than the ATT MTU allows (20)")) {
            try await transport.write(Array(repeating: 0, count: 21), to: .securePacket, type: .withoutResponse)
        }
    }
}
