public import DFUCore

/// The seam between the command line and a Bluetooth stack: opens one link per device, and scans.
///
/// `dfu` uses BlueZ; tests hand in simulated devices on a virtual clock, so a whole
/// `dfu upload` runs in-process, fast and deterministic.
public struct TransportProvider: Sendable {
    /// Opens a link for the device `device` (as the user named it) on `adapter` (nil = the default
    /// adapter), moving data as `preferences` say. Throws ``TransportUnavailableError`` when the
    /// stack, the bus or the adapter is missing.
    public var openLink: @Sendable (_ adapter: String?, _ device: String, _ preferences: LinkPreferences) async throws
        -> TransportSession
    /// Scans on `adapter` for `timeout` and returns every device heard, once each.
    public var scan: @Sendable (_ adapter: String?, _ timeout: Duration) async throws -> [Advertisement]

    /// Makes a provider from its functions; without `scan`, scanning is unavailable.
    public init(
        openLink: @escaping @Sendable (_ adapter: String?, _ device: String, _ preferences: LinkPreferences) async throws
            -> TransportSession,
        scan: @escaping @Sendable (_ adapter: String?, _ timeout: Duration) async throws -> [Advertisement] = { _, _ in
            throw TransportUnavailableError(reason: "this Bluetooth stack cannot scan")
        }
    ) {
        self.openLink = openLink
        self.scan = scan
    }

    /// Makes a provider whose links have one way of moving data (they ignore ``LinkPreferences``,
    /// as simulated links do); without `scan`, scanning is unavailable.
    public init(
        open: @escaping @Sendable (_ adapter: String?, _ device: String) async throws -> TransportSession,
        scan: @escaping @Sendable (_ adapter: String?, _ timeout: Duration) async throws -> [Advertisement] = { _, _ in
            throw TransportUnavailableError(reason: "this Bluetooth stack cannot scan")
        }
    ) {
        self.init(openLink: { adapter, device, _ in try await open(adapter, device) }, scan: scan)
    }

    /// Opens a link for `device` on `adapter` (nil = the default adapter) through ``openLink``.
    public func open(_ adapter: String?, _ device: String, preferences: LinkPreferences = LinkPreferences())
        async throws -> TransportSession
    {
        try await openLink(adapter, device, preferences)
    }

    /// A provider that always fails with `reason` (exit 69): used until a Bluetooth stack is linked in.
    public static func unavailable(_ reason: String) -> TransportProvider {
        TransportProvider(open: { _, _ in throw TransportUnavailableError(reason: reason) },
                          scan: { _, _ in throw TransportUnavailableError(reason: reason) })
    }
}
