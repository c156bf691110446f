import BlueZTransport
import DFUCore
import SystemSupport

/// The real ``TransportProvider``: one ``BlueZTransport`` (its own bus connection) per device, on
/// the adapter asked for, timed by the wall clock, with the engine run on the transport's event loop.
enum BlueZProvider {
    /// Opens links and scans through bluetoothd.
    static let provider = TransportProvider { adapter, _, preferences in
        let transport = try await open(adapter: adapter)
        if !preferences.acquiresSockets { await transport.setAcquiring(write: false, notify: false) }
        await transport.setPairing(passkey: preferences.passkey, prompt: preferences.passkeyPrompt)
        return TransportSession(transport: transport, clock: transport.clock, executor: transport.executor) {
            await transport.close()
        }
    } scan: { adapter, timeout in
        let transport = try await open(adapter: adapter)
        do {
            let heard = try await BlueZHost.scan(transport, for: timeout)
            await transport.close()
            return heard
        } catch {
            await transport.close()
            throw error
        }
    }

    /// Opens the adapter; a missing bus, bluetoothd or adapter becomes ``TransportUnavailableError`` (exit 69).
    private static func open(adapter: String?) async throws -> BlueZTransport {
        try refuseUnsafeBusAddress()
        return try await openHost(adapter: adapter)
    }

    /// Refuses a `DBUS_SYSTEM_BUS_ADDRESS` that is not `unix:` before libdbus sees it: a `unixexec:` address
    /// would run a program (``UnsafeSetupError``, exit 78).
    private static func refuseUnsafeBusAddress() throws(UnsafeSetupError) {
        guard let value = CurrentProcess.environmentValue("DBUS_SYSTEM_BUS_ADDRESS") else { return }
        if let defect = BlueZHost.systemBusAddressDefect(value) { throw UnsafeSetupError(reason: defect) }
    }

    private static func openHost(adapter: String?) async throws -> BlueZTransport {
        // One catch-all clause rather than `catch .hostUnavailable(let reason)`: Swift 6.0.3 (Debian 13's
        // swiftlang, make deb-arm64) crashes in SIL ownership verification on a typed-throws pattern
        // that binds a payload in a function that rethrows the remaining errors untyped.
        do {
            return try await BlueZHost.open(adapter: adapter)
        } catch {
            if case .hostUnavailable(let reason) = error { throw TransportUnavailableError(reason: reason) }
            throw error
        }
    }
}

extension CommandContext {
    /// The process's context with Bluetooth through BlueZ.
    public static func bluez(environment: [String: String]) -> CommandContext {
        var context = CommandContext.standard(environment: environment)
        context.transports = BlueZProvider.provider
        context.passkeyPrompt = TerminalPasskeyPrompt.make(writeError: context.writeError)
        context.locksDevices = true
        return context
    }
}
