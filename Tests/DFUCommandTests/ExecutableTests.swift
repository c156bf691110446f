import Foundation
import TestSupport
import Testing

/// The built `dfu` executable, run as a process: exit statuses, streams, no crash on bad input.
@Suite struct ExecutableTests {
    struct Outcome: Sendable {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs the built `dfu` (or `wrapper`, which runs it) to its end, waiting on a thread of its own.
    static func run(_ arguments: [String], through wrapper: [String]? = nil, adding environment: [String: String] = [:])
        async throws -> Outcome
    {
        try await offThePool { try runBlocking(arguments, through: wrapper, adding: environment) }
    }

    private static func runBlocking(_ arguments: [String], through wrapper: [String]?, adding environment: [String: String])
        throws -> Outcome
    {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let wrapper, let tool = wrapper.first {
            // e.g. script(1): the wrapper's own command line carries dfu and its arguments.
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(wrapper.dropFirst())
            process.standardInput = FileHandle.nullDevice
        } else {
            process.executableURL = TestData.dfuExecutable
            process.arguments = arguments
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.statusIfEnded ?? -1, output: String(decoding: outData, as: UTF8.self),
            error: String(decoding: errData, as: UTF8.self))
    }

    @Test func inspectOfTheBundledSampleSucceeds() async throws {
        let sample = TestData.root.appendingPathComponent("firmware-samples/secure-sd-bl-app.zip").path
        let outcome = try await Self.run(["inspect", sample])
        #expect(outcome.status == 0)
        #expect(outcome.error.isEmpty)
        #expect(outcome.output.contains("Part 1 of 2: softdevice_bootloader"))
        #expect(outcome.output.contains("Part 2 of 2: application"))
    }

    /// The system's OpenSSL configuration is for TLS and providers; the digests and signature checks do not read it.
    /// One that names a provider that is not installed made every EVP fetch fail: a sound package was reported as
    /// "init packet hash does not match" (exit 65). The signature check goes through EVP (the key read from PEM, the
    /// ECDSA verification), so it is what this checks now that digests do not.
    @Test func aSystemOpenSSLConfigurationNamingAMissingProviderFailsNeitherTheHashNorTheSignatureCheck() async throws {
        let folder = try TestScratch.folder("openssl-conf")
        let configuration = folder.appendingPathComponent("openssl.cnf")
        // OpenSSL's configuration format: activate a provider named "missing", which no system has.
        try Data("""
            openssl_conf = openssl_init
            [openssl_init]
            providers = provider_sect
            [provider_sect]
            missing = missing_sect
            [missing_sect]
            activate = 1

            """.utf8).write(to: configuration)
        let package = TestData.fixtures.appendingPathComponent("packages/secure-app-4096.zip").path
        let key = TestData.fixtures.appendingPathComponent("keys/test-public.pem").path
        let outcome = try await Self.run(["inspect", package, "--key", key], adding: ["OPENSSL_CONF": configuration.path])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.output.contains("hash check         ok (SHA-256"))
        #expect(outcome.output.contains("signature          valid"))
    }

    @Test func everyBadFixtureExitsWith65AndOneLineWithoutCrashing() async throws {
        let folder = TestData.fixtures.appendingPathComponent("bad")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".zip") }
        #expect(files.count >= 17)
        for file in files.sorted() {
            let outcome = try await Self.run(["inspect", folder.appendingPathComponent(file).path,
                                        "--key", TestData.fixtures.appendingPathComponent("keys/test-public.pem").path])
            #expect(outcome.status == 65, "\(file): \(outcome.error)")
            #expect(outcome.output.isEmpty, "\(file)")
            #expect(outcome.error.split(separator: "\n").count == 1, "\(file): \(outcome.error)")
            #expect(outcome.error.hasPrefix("dfu: "), "\(file)")
        }
    }

    @Test func usageErrorExitsWith64() async throws {
        let outcome = try await Self.run(["inspect", "--bogus"])
        #expect(outcome.status == 64)
        #expect(outcome.error == "dfu: unknown option --bogus (see 'dfu inspect --help')\n")
    }

    /// With too few descriptors for its event loop or its Ctrl-C handler (a limit of 4 leaves one after the standard
    /// streams: enough to load the libraries, not for epoll and an eventfd; 6, enough for the loop, not for the
    /// handler's eventfd), dfu says which call failed and why, and exits 71 (EX_OSERR).
    @Test(arguments: [(4, "dfu: cannot start its event loop: eventfd: Too many open files\n"),
                      (6, "dfu: cannot handle Ctrl-C: eventfd: Too many open files\n")])
    func tooFewDescriptorsToRunExitsWith71NamingTheCall(limit: Int, message: String) async throws {
        // Descriptors 3 to 9 closed first, in case the test runner left any open to its children.
        let script = "exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-; ulimit -n \(limit); exec \"$0\" --version"
        let outcome = try await Self.run([], through: ["/bin/sh", "-c", script, TestData.dfuExecutable.path])
        #expect(outcome.status == 71, "\(outcome.error)")
        #expect(outcome.error == message)
        #expect(outcome.output.isEmpty)
    }

    @Test func helpOfEveryCommandShowsExamplesAndExitCodes() async throws {
        let outcome = try await Self.run(["inspect", "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("Examples:"))
        #expect(outcome.output.contains("Exit codes:"))
    }
}
