import BlueZTransport
import DFUCore
import Glibc
import Testing
import DFUFormats

/// Opt-in measurement (`DFU_BENCHMARK=1`): wall time and this process's CPU time (user + sys) for a
/// 500 KB Secure upload through dfu-sim, packets via AcquireWrite and via the WriteValue fallback.
/// The CPU time is the client's alone: dfu-sim and dbus-daemon are other processes.
@Suite(.enabled(if: DFUSimServer.isAvailable && getenv("DFU_BENCHMARK") != nil, "set DFU_BENCHMARK=1"), .serialized)
struct DFUSimBenchmarkTests {
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    @Test(arguments: [true, false])
    func fiveHundredKilobytes(acquireWrite: Bool) async throws {
        let package = LiveRig.securePackage(size: 500 * 1024 - 4096, seed: 11)
        let bootloader = try #require(DFUDeviceAddress("C0:FF:EE:00:13:00"))
        let server = try await DFUSimServer.start(["--device", "secure,address=\(bootloader)"])
        let transport = try await BlueZTransport.open(busAddress: server.address)
        await transport.setAcquiring(write: acquireWrite, notify: true)
        var options = DFUOptions()
        options.nameSeed = 1
        let cpuBefore = Self.cpuSeconds()
        let start = ContinuousClock.now
        let result = await LiveRig.update(package, over: transport, options: options, device: .address(bootloader))
        let wall = ContinuousClock.now - start
        let cpu = Self.cpuSeconds() - cpuBefore
        await transport.close()
        let report = try await server.stop()
        _ = try result.get()
        #expect(DFUSimUploadTests.holds(report, "application", try #require(package.parts.first).image))
        print("benchmark \(acquireWrite ? "AcquireWrite" : "WriteValue command"): \(package.parts[0].image.count) bytes, wall \(wall), client CPU \(cpu) s")
    }
}
