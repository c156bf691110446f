import DBus

extension BlueZStandIn {
    /// How long a restarting stand-in stays off the bus.
    static let restartPause: Duration = .milliseconds(200)

    /// The adapter disappears, as when it is unplugged: every link ends, every discovery session and
    /// device object goes, and the adapter object is removed (InterfacesRemoved).
    func removeAdapter() {
        guard adapterPresent else { return }
        for path in devices.keys.sorted() where devices[path]?.connected == true {
            tearDown(path, reboot: nil, announce: false)
        }
        discoverySessions = [:]
        pendingFilters = [:]
        discoveryGeneration += 1
        for path in devices.keys.sorted() {
            removeObjects(of: path)
        }
        devices = [:]
        try? connection.unexport(at: adapterPath)
        adapterPresent = false
    }

    /// bluetoothd restarts: it drops every link and object, leaves the name `org.bluez`, and after a
    /// short pause serves /org/bluez and the adapter again (without devices, cache or agents) under
    /// the same name. The simulated devices keep their flash. (`dfu-sim serve` does this on SIGHUP.)
    public func restart() async {
        await leaveTheBus()
        await pause(Self.restartPause)
        // As bluetoothd starts: it takes the name first, then announces its adapters (InterfacesAdded).
        if let interfaces = try? rootInterfaces() { try? connection.export(interfaces.map(Self.asBluetoothd), at: names.root) }
        try? await connection.requestName(names.service)
        if configuration.hasAdapter, let adapter = try? adapterInterface() {
            try? connection.export([Self.asBluetoothd(adapter)], at: adapterPath)
            adapterPresent = true
        }
        try? exportOtherAdapters()
    }

    /// bluetoothd stops for good: its adapters powered down (every link ends, `src/adapter.c` `adapter_shutdown`),
    /// its objects gone, the name `org.bluez` left.
    func quit() async {
        await leaveTheBus()
    }

    private func leaveTheBus() async {
        removeAdapter()
        for adapter in configuration.otherAdapters {
            if let path = try? names.root.appending(adapter.name) { try? connection.unexport(at: path) }
        }
        agents = [:]
        defaultAgents = []
        try? connection.unexport(at: names.root)
        try? await connection.releaseName(names.service)
    }
}
