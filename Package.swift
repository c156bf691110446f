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
        .library(name: "DFUCore", targets: ["DFUCore"]),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // CRC-32 (zlib), SHA-256 and ECDSA P-256 (libcrypto) behind a small Swift API.
        .target(name: "DFUCrypto", dependencies: ["CCrypto", "CZlib"], swiftSettings: strict),
        // Read-only, in-memory ZIP reader over libzip.
        .target(name: "ZipArchive", dependencies: ["CZip"], swiftSettings: strict),
        // The pure core: package model, init packets, protocol state machines, runner.
        .target(name: "DFUCore", dependencies: ["DFUCrypto"], swiftSettings: strict),
        // Simulated nRF5 bootloaders and applications behind the core's transport protocol.
        .target(name: "DFUSimulator", dependencies: ["DFUCore", "DFUCrypto"], swiftSettings: strict),
        // D-Bus over libdbus-1; knows nothing about BlueZ.
        .target(name: "DBus", dependencies: ["CDBus"], swiftSettings: strict),
        // The command line as a library, and the thin executable.
        .target(name: "DFUCommand", dependencies: ["DFUCore", "ZipArchive", "DFUSimulator"], swiftSettings: strict),
        .executableTarget(name: "dfu", dependencies: ["DFUCommand"], swiftSettings: strict),

        .testTarget(name: "DFUCryptoTests", dependencies: ["DFUCrypto"], swiftSettings: strict),
        .testTarget(name: "ZipArchiveTests", dependencies: ["ZipArchive", "DFUCrypto"], swiftSettings: strict),
        .testTarget(
            name: "DFUCoreTests", dependencies: ["DFUCore", "DFUCrypto", "ZipArchive"], exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(name: "DFUEngineTests", dependencies: ["DFUCore", "DFUSimulator", "DFUCrypto", "ZipArchive"], swiftSettings: strict),
        .testTarget(name: "DBusTests", dependencies: ["DBus"], swiftSettings: strict),
        .testTarget(name: "DFUCommandTests", dependencies: ["DFUCommand", "DFUCore"], swiftSettings: strict),
    ]
)
