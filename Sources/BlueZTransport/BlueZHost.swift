public import DFUCore
import BlueZ

/// bluetoothd as the command line sees it: opening an adapter and scanning, with BlueZ's errors
/// already turned into the transport's, so nothing above this module needs to know BlueZ.
public enum BlueZHost {
    /// Opens the system bus and `adapter` (`hci0`; nil = the first powered one). Throws
    /// ``DFUTransportError/hostUnavailable(_:)`` when the bus, bluetoothd or the adapter cannot be
    /// used, ``DFUTransportError/failed(_:)`` for anything else bluetoothd refused.
    public static func open(adapter: String?) async throws(DFUTransportError) -> BlueZTransport {
        do {
            return try await BlueZTransport.open(adapter: adapter)
        } catch {
            throw transportError(error)
        }
    }

    /// Why `address` (the value of `DBUS_SYSTEM_BUS_ADDRESS`) is not used for the system bus, or nil when it
    /// is: only `unix:` addresses are; ``open(adapter:)`` refuses the others before opening anything.
    public static func systemBusAddressDefect(_ address: String) -> String? {
        BlueZClient.systemBusAddressDefect(address)
    }

    /// Scans on `transport`'s adapter for `duration` and returns every device heard, strongest first
    /// (devices without a valid address are left out).
    public static func scan(_ transport: BlueZTransport, for duration: Duration) async throws(DFUTransportError)
        -> [Advertisement]
    {
        let devices: [BlueZDevice]
        do {
            devices = try await transport.scan(for: duration)
        } catch {
            throw transportError(error)
        }
        return devices.compactMap { device in
            DFUDeviceAddress(device.address).map { address in
                Advertisement(address: address, name: device.name, rssi: device.rssi,
                              serviceUUIDs: device.serviceUUIDs.map { $0.uppercased() })
            }
        }
    }

    /// `error` in the transport's terms, with BlueZ's sentence kept.
    static func transportError(_ error: BlueZError) -> DFUTransportError {
        error.isStackUnavailable ? .hostUnavailable(error.description) : .failed(error.description)
    }
}
