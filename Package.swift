// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "dfu",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "dfu", targets: ["dfu"]),
        .executable(name: "dfu-sim", targets: ["dfu-sim"]),
        .library(name: "DFUCore", targets: ["DFUCore", "DFUFormats"]),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCbor", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "CJSON", pkgConfig: "json-c", providers: [.apt(["libjson-c-dev"])]),
        // Linux headers Glibc's module leaves out (epoll, eventfd, timerfd); glibc itself, nothing to link.
        .systemLibrary(name: "CLinux"),
        // The handler of SIGINT and SIGTERM, in C: a signal handler may make only async-signal-safe calls.
        // DWARF 4 as the Swift objects have it: clang's default DWARF 5 beside it makes Debian 12's valgrind 3.19 (which
        // packaging/symbol-order.sh runs) give up on the binary's debug information.
        .target(name: "CInterruptSignals", cSettings: [.unsafeFlags(["-gdwarf-4"])]),

        // The one thread launcher (pthread) and the file reader and writer, over Glibc alone.
        .target(name: "SystemSupport", dependencies: ["CLinux", "CInterruptSignals"], swiftSettings: strict),
        // What only dfu-sim, the benchmarks and the tests use, never linked into dfu: a private dbus-daemon that ends
        // with its parent, and a child process launcher (posix_spawn).
        // Starting child processes (posix_spawn, wait4, a pidfd): the system layer's second target, for the
        // simulator, the benchmarks and the tests; `dfu` starts none and does not link it.
        .target(name: "ProcessSpawning", dependencies: ["CLinux", "SystemSupport"], swiftSettings: strict),
        .target(name: "DFUSimSupport", dependencies: ["DBus", "ProcessSpawning", "SystemSupport"], swiftSettings: strict),
        // CRC-32 (zlib), SHA-256 and ECDSA P-256 (libcrypto) behind a small Swift API.
        .target(name: "DFUCrypto", dependencies: ["CCrypto", "CZlib"], swiftSettings: strict),
        // Read-only, in-memory ZIP reader over libzip.
        .target(name: "ZipArchive", dependencies: ["CZip"], swiftSettings: strict),
        // CBOR values encoded and decoded by libcbor, with bounds for hostile input.
        .target(name: "CBOR", dependencies: ["CCbor"], swiftSettings: strict),
        // JSON values read and written by json-c, and Encodable values turned into them.
        .target(name: "JSON", dependencies: ["CJSON"], swiftSettings: strict),
        // The firmware formats: nRF5 packages and init packets, Intel HEX, MCUboot images and the nRF Connect SDK
        // manifest, package generation, byte codecs and checksums. Pure: reads and writes bytes, talks to no device.
        .target(name: "DFUFormats", dependencies: ["DFUCrypto", "JSON"], swiftSettings: strict),
        // The engine: protocol state machines, the runner, pacing, the transport protocol, options, progress, errors.
        .target(name: "DFUCore", dependencies: ["DFUFormats", "DFUCrypto", "CBOR"], swiftSettings: strict),
        // Simulated nRF5 bootloaders and applications behind the core's transport protocol.
        .target(name: "DFUSimulator", dependencies: ["DFUCore", "DFUFormats", "DFUCrypto", "CBOR"], swiftSettings: strict),
        // One epoll thread for the live path: sockets, timers, and a task executor; knows no D-Bus.
        .target(name: "IOLoop", dependencies: ["SystemSupport"], swiftSettings: strict),
        // D-Bus over libdbus-1, served by the event loop; knows nothing about BlueZ.
        .target(name: "DBus", dependencies: ["CDBus", "IOLoop", "SystemSupport"], swiftSettings: strict),
        // Typed client of bluetoothd's org.bluez D-Bus API, and the engine's transport over it.
        .target(name: "BlueZ", dependencies: ["DBus", "SystemSupport"], swiftSettings: strict),
        .target(name: "BlueZTransport", dependencies: ["BlueZ", "DFUCore", "IOLoop", "SystemSupport"], swiftSettings: strict),
        // bluetoothd's stand-in: serves org.bluez on a private bus from simulated devices; `dfu-sim`.
        .target(
            name: "DFUSimStandIn", dependencies: ["BlueZ", "DBus", "DFUCore", "DFUFormats", "DFUSimulator", "DFUCrypto", "IOLoop", "SystemSupport"],
            swiftSettings: strict),
        .executableTarget(
            name: "dfu-sim", dependencies: ["DFUSimCommand", "SystemSupport"], exclude: ["README.md"],
            swiftSettings: strict),
        // The command line as a library, and the thin executable.
        .target(name: "DFUCommand", dependencies: ["DFUCore", "DFUFormats", "DFUCrypto", "JSON", "ZipArchive", "BlueZTransport", "SystemSupport"], swiftSettings: strict),
        .executableTarget(name: "dfu", dependencies: ["DFUCommand", "IOLoop", "SystemSupport"], swiftSettings: strict),
        // A simulated target as a GATT peripheral on a real bluetoothd (org.bluez server side);
        // `dfu-sim peripheral`. Devices are specified as for the stand-in.
        .target(
            name: "DFUSimPeripheral", dependencies: ["BlueZ", "DFUSimStandIn", "DBus", "IOLoop", "DFUCore", "DFUSimulator", "DFUCrypto", "SystemSupport"],
            swiftSettings: strict),
        // `dfu-sim`'s command line as a library: run, serve, peripheral and image, their arguments and the
        // device specs they take; the executable is a thin main.
        .target(
            name: "DFUSimCommand",
            dependencies: ["DFUSimStandIn", "DFUSimPeripheral", "DFUSimSupport", "DBus", "DFUCore", "DFUFormats", "DFUSimulator", "DFUCrypto", "ProcessSpawning", "SystemSupport"],
            swiftSettings: strict),
        // `make bench`: the benchmark figures (never part of `make test`), and its thin executable.
        .target(
            name: "DFUBenchmarks",
            dependencies: ["DFUCommand", "DFUCore", "DFUFormats", "DFUSimulator", "DFUCrypto", "BlueZTransport", "ProcessSpawning", "SystemSupport"],
            swiftSettings: strict),
        .executableTarget(name: "dfu-bench", dependencies: ["DFUBenchmarks", "SystemSupport"], swiftSettings: strict),
        // `make bench`'s measuring wrapper: a command's CPU (µs), peak RSS and context switches from wait4.
        .executableTarget(name: "dfu-bench-rusage"),

        // Helpers shared by test targets: running command-line tools with a deadline, finding the built
        // ones, test firmware, the fuzz regression inputs.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),

        .testTarget(name: "DFUCryptoTests", dependencies: ["DFUCrypto"], swiftSettings: strict),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        .testTarget(name: "ZipArchiveTests", dependencies: ["ZipArchive", "DFUCrypto", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "DFUCoreTests", dependencies: ["DFUCore", "DFUFormats", "DFUCrypto", "ZipArchive", "TestSupport", "CBOR", "DFUSimulator"], exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "DFUEngineTests", dependencies: ["DFUCore", "DFUFormats", "DFUSimulator", "DFUCrypto", "ZipArchive", "TestSupport", "CBOR"],
            swiftSettings: strict),
        .testTarget(name: "IOLoopTests", dependencies: ["IOLoop"], swiftSettings: strict),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport", "CLinux"], swiftSettings: strict),
        .testTarget(name: "ProcessSpawningTests", dependencies: ["ProcessSpawning", "SystemSupport", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "DFUSimCommandTests",
            dependencies: ["DFUSimCommand", "DFUSimStandIn", "DFUSimPeripheral", "DBus", "DFUCore", "DFUCrypto", "DFUSimulator"],
            swiftSettings: strict),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "DFUSimSupport", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "BlueZTests",
            dependencies: [
                "BlueZ", "BlueZTransport", "DBus", "DFUCore", "DFUFormats", "DFUCrypto", "DFUSimulator", "DFUSimStandIn", "IOLoop", "ProcessSpawning", "SystemSupport", "DFUSimSupport", "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "DFUSimStandInTests", dependencies: ["DFUSimStandIn", "DFUSimCommand", "DBus", "DFUCore", "DFUFormats", "DFUSimulator", "DFUCrypto", "IOLoop", "DFUSimSupport", "TestSupport", "CBOR"],
            swiftSettings: strict),
        .testTarget(
            name: "DFUSimPeripheralTests",
            dependencies: ["BlueZ", "DFUSimPeripheral", "DFUSimStandIn", "DFUSimCommand", "DBus", "DFUSimulator", "DFUCore", "DFUSimSupport", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "DFUCommandTests",
            dependencies: ["DFUCommand", "DFUCore", "DFUFormats", "DFUSimulator", "DFUCrypto", "ZipArchive", "SystemSupport", "TestSupport"],
            swiftSettings: strict),
        // Only the benchmark's pure helpers (statistics, tables, the shared-adapter model); no timing.
        .testTarget(name: "DFUBenchmarksTests", dependencies: ["DFUBenchmarks", "DFUCore", "DFUFormats", "DFUSimulator"], swiftSettings: strict),
    ]
)
