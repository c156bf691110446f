/// Which DFU protocol family a package was built for.
public enum PackageFormat: String, Sendable, Hashable, Codable {
    /// Secure DFU (nRF5 SDK 12–17): protobuf init packets, nrfutil 1.x–6.x manifests.
    case secure
    /// Legacy DFU (nRF5 SDK 4.3–11): CRC/extended init packets, nrfutil 0.5.x manifests.
    case legacy
}
