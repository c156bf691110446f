import DBus
import DFUCore
public import DFUSimPeripheral
import DFUSimStandIn
import Dispatch
import SystemSupport

/// `dfu-sim peripheral`: poses as a simulated nRF DFU target on a real bluetoothd until
/// SIGINT or SIGTERM.
public enum PeripheralCommand {
    /// The usage text.
    public static let usage = """
        usage: dfu-sim peripheral --adapter hciN --device SPEC [options]

        Registers a simulated nRF5 DFU target or nRF Connect SDK (SMP) device with bluetoothd
        (org.bluez) as a GATT application and an LE advertisement, and serves it until SIGINT or SIGTERM.

          --adapter hciN              the adapter of the application (and of same-address bootloaders)
          --bootloader-adapter hciM   the adapter of a bootloader that comes back at another address
          --device SPEC               as for dfu-sim run: KIND[,name=NAME][,key=value...], KIND one of
                                      secure, legacy, buttonless, buttonless-bonded,
                                      buttonless-experimental, legacy-app, smp, smp-auth,
                                      smp-nrf5340, smp-loader, smp-loader-bm (its loader
                                      on --bootloader-adapter); address= is ignored: the
                                      device has the adapter's address. smp-auth's characteristic needs
                                      authenticated keys (bluetoothd enforces it) and the
                                      peripheral registers a default agent with the device's
                                      io= (default DisplayOnly; KeyboardOnly types passkey=)
          --report FILE               keep a JSON report (role, images with CRC-32, writes; SMP:
                                      slots and statistics) in FILE
          --no-acquire-write          do not offer AcquireWrite on write-without-response characteristics
          --acquire-notify            offer AcquireNotify on notify characteristics
          --disconnect-after-bytes N  drop the link once, after N bytes of data packets (resume tests)
          --accept-pairing            register a NoInputNoOutput pairing agent (the default agent) that
                                      accepts Just Works pairing, as an nRF5 target with bonds does;
                                      bluetoothd refuses pairing when no agent answers
          --readvertise-ms N          register the advertisement again every N ms while nobody is
                                      connected (for emulated controllers that report an advertiser
                                      only once, such as btvirt's)
          -h, --help                  this text
        """

    /// Parses `arguments` (after `peripheral`) into a configuration; nil when help was asked for.
    public static func parse(_ arguments: [String]) throws(PeripheralError) -> PeripheralHost.Configuration? {
        var adapter: String?
        var bootloaderAdapter: String?
        var device: SimulatedDeviceSpec?
        var report: String?
        var acquireWrite = true
        var acquireNotify = false
        var disconnectAfter: Int?
        var readvertise: Int?
        var acceptsPairing = false
        var index = 0
        func value(_ option: String) throws(PeripheralError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw .usage("\(option) needs a value")
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help": return nil
            case "--adapter": adapter = try checkedAdapter(try value(argument))
            case "--bootloader-adapter": bootloaderAdapter = try checkedAdapter(try value(argument))
            case "--device":
                let text = try value(argument)
                do {
                    device = try SimulatedDeviceSpec(parsing: text)
                } catch {
                    throw .badDeviceSpec(error.message)
                }
            case "--report": report = try value(argument)
            case "--no-acquire-write": acquireWrite = false
            case "--acquire-notify": acquireNotify = true
            case "--accept-pairing": acceptsPairing = true
            case "--disconnect-after-bytes":
                let text = try value(argument)
                guard let bytes = Int(text), bytes > 0 else {
                    throw .usage("--disconnect-after-bytes takes a positive number, not \"\(text)\"")
                }
                disconnectAfter = bytes
            case "--readvertise-ms":
                let text = try value(argument)
                guard let milliseconds = Int(text), milliseconds >= 100 else {
                    throw .usage("--readvertise-ms takes a number of milliseconds, at least 100, not \"\(text)\"")
                }
                readvertise = milliseconds
            default: throw .usage("unknown option \(argument)")
            }
            index += 1
        }
        guard let adapter else { throw .usage("--adapter is required") }
        guard let device else { throw .usage("--device is required") }
        if bootloaderAdapter == adapter { throw .usage("--bootloader-adapter must differ from --adapter") }
        var configuration = PeripheralHost.Configuration(
            adapter: adapter, bootloaderAdapter: bootloaderAdapter, device: device)
        configuration.reportPath = report
        configuration.acquireWrite = acquireWrite
        configuration.acquireNotify = acquireNotify
        configuration.disconnectAfterPacketBytes = disconnectAfter
        configuration.readvertiseInterval = readvertise.map { .milliseconds($0) }
        configuration.acceptsPairing = acceptsPairing
        return configuration
    }

    /// An adapter name is `hci` and a number.
    private static func checkedAdapter(_ name: String) throws(PeripheralError) -> String {
        guard name.hasPrefix("hci"), name.count > 3, name.dropFirst(3).allSatisfy(\.isNumber) else {
            throw .usage("an adapter is named hciN, not \"\(name)\"")
        }
        return name
    }

    /// Runs the command; returns the exit status (0 after a clean stop, 1 on failure, 64 on a usage error).
    public static func run(arguments: [String]) async -> Int32 {
        let configuration: PeripheralHost.Configuration
        do {
            guard let parsed = try parse(arguments) else {
                print(usage)
                return 0
            }
            configuration = parsed
        } catch {
            printError("dfu-sim peripheral: \(error)\n\(usage)")
            return 64
        }
        let log: PeripheralHost.Log = { line in
            writeLine("dfu-sim peripheral: \(line)", to: .standardOutput)
        }
        do {
            let connection = try DBusConnection.systemBus()
            defer { connection.close() }
            let address = try await adapterAddress(configuration.adapter, connection: connection)
            let host = try PeripheralHost(
                connection: connection, configuration: configuration, address: address, log: log)
            let stop = StopSignal()
            do {
                try await host.start()
            } catch {
                await host.stop()
                throw error
            }
            await stop.wait()
            log("stopping")
            await host.stop()
            return 0
        } catch {
            printError("dfu-sim peripheral: \(error)")
            return 1
        }
    }

    private static func adapterAddress(_ adapter: String, connection: DBusConnection) async throws -> DFUDeviceAddress {
        let names = try BlueZVocabulary()
        let value: DBusValue
        do {
            value = try await connection.property(
                "Address", of: names.adapter, at: try names.adapterPath(adapter), destination: names.service)
        } catch {
            if error.code == .noSuchName { throw PeripheralError.bluez(what: "finding bluetoothd", reason: error.description) }
            throw PeripheralError.adapterNotFound(adapter)
        }
        guard let text = value.stringValue, let address = DFUDeviceAddress(text) else {
            throw PeripheralError.bluez(what: "reading \(adapter)'s address", reason: "not an address: \(value)")
        }
        return address
    }

    /// Writes a whole line with one `write` call (more only if the first is partial), so lines from
    /// different tasks do not interleave.
    private static func writeLine(_ text: String, to descriptor: FileDescriptor) {
        try? descriptor.writeAll((text + "\n").utf8)
    }

    private static func printError(_ text: String) {
        writeLine(text, to: .standardError)
    }
}
