import DFUCore
import DFUFormats

/// One thing that passed through a link, as seen by ``ObservedTransport``.
enum TransportObservation: Sendable {
    /// Connected to a device.
    case connected(DFUPeer)
    /// A connection attempt failed.
    case connectFailed(DFUTransportError)
    /// A value was written.
    case write(DFUEndpoint, [UInt8])
    /// A notification or indication arrived.
    case notification(DFUNotification)
    /// The link was dropped by us.
    case disconnected

    /// A packet-level trace line with requests and responses decoded by name, e.g.
    /// "→ Secure DFU Control Point: Create Object (01 02 00 10 00 00)".
    var traceLine: String {
        switch self {
        case .connected(let peer):
            return "connected to \(peer.address)\(peer.name.map { " (\($0))" } ?? ""), "
                + "\(peer.maximumWriteLength)-byte writes, endpoints: "
                + peer.endpoints.map(\.description).sorted().joined(separator: ", ")
        case .write(let endpoint, let bytes):
            return "→ \(endpoint): " + Self.request(bytes, to: endpoint)
        case .notification(let notification):
            return "← \(notification.endpoint): " + Self.response(notification.bytes, from: notification.endpoint)
        case .connectFailed(let error):
            return "connection failed: \(error)"
        case .disconnected:
            return "disconnected"
        }
    }

    private static func request(_ bytes: [UInt8], to endpoint: DFUEndpoint) -> String {
        guard let first = bytes.first else { return "(empty)" }
        switch endpoint {
        case .securePacket, .legacyPacket:
            return "\(bytes.count) bytes of data"
        case .secureControlPoint:
            return "\(SecureDFUOpCode(rawValue: first)) (\(bytes.hexDescription))"
        case .legacyControlPoint:
            return "\(LegacyDFUOpCode(rawValue: first)) (\(bytes.hexDescription))"
        case .buttonlessWithBonds, .buttonlessWithoutBonds, .buttonlessExperimental:
            switch first {
            case 0x01: return "Enter Bootloader (\(bytes.hexDescription))"
            case 0x02: return "Set Advertising Name (\(bytes.hexDescription))"
            default: return "opcode 0x\([first].hexDescription) (\(bytes.hexDescription))"
            }
        case .legacyVersion:
            return bytes.hexDescription
        case .smp:
            // A write may be a whole frame or a piece of one; the header says which.
            guard let header = try? SMPHeader(bytes: bytes) else { return "\(bytes.count) bytes of an SMP frame" }
            return header.description
        }
    }

    private static func response(_ bytes: [UInt8], from endpoint: DFUEndpoint) -> String {
        switch endpoint {
        case .secureControlPoint:
            if let response = try? SecureDFUResponse(bytes: bytes) { return response.description }
        case .legacyControlPoint:
            if let notification = try? LegacyDFUNotification(bytes: bytes) {
                return "\(notification) (\(bytes.hexDescription))"
            }
        case .buttonlessWithBonds, .buttonlessWithoutBonds, .buttonlessExperimental:
            if bytes.count >= 3, bytes[0] == 0x20 {
                let request = bytes[1] == 0x01 ? "Enter Bootloader" : bytes[1] == 0x02 ? "Set Advertising Name" : "opcode 0x\([bytes[1]].hexDescription)"
                return "\(request) → \(ButtonlessStatus(rawValue: bytes[2])) (\(bytes.hexDescription))"
            }
        default:
            break
        }
        return "undecoded (\(bytes.hexDescription))"
    }
}
