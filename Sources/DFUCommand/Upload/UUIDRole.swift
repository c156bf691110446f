import DFUCore

/// A GATT role whose UUID `--uuid ROLE=UUID` replaces, for firmware with custom UUIDs.
enum UUIDRole: String, CaseIterable, Sendable {
    case secureService = "secure-service"
    case secureControlPoint = "secure-control-point"
    case securePacket = "secure-packet"
    case buttonlessWithoutBonds = "buttonless-without-bonds"
    case buttonlessWithBonds = "buttonless-with-bonds"
    case experimentalButtonlessService = "experimental-buttonless-service"
    case experimentalButtonlessCharacteristic = "experimental-buttonless-characteristic"
    case legacyService = "legacy-service"
    case legacyControlPoint = "legacy-control-point"
    case legacyPacket = "legacy-packet"
    case legacyVersion = "legacy-version"

    /// Where the role's UUID lives in the engine's table.
    var keyPath: WritableKeyPath<DFUServiceUUIDs, String> {
        switch self {
        case .secureService: \.secureService
        case .secureControlPoint: \.secureControlPoint
        case .securePacket: \.securePacket
        case .buttonlessWithoutBonds: \.buttonlessWithoutBonds
        case .buttonlessWithBonds: \.buttonlessWithBonds
        case .experimentalButtonlessService: \.experimentalButtonlessService
        case .experimentalButtonlessCharacteristic: \.experimentalButtonlessCharacteristic
        case .legacyService: \.legacyService
        case .legacyControlPoint: \.legacyControlPoint
        case .legacyPacket: \.legacyPacket
        case .legacyVersion: \.legacyVersion
        }
    }

    /// The role names, for messages and help.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// A UUID as written on the command line in canonical 128-bit upper-case form: 16-bit (`FE59`)
    /// and 32-bit values are expanded with the Bluetooth base UUID; nil when it is none of these.
    static func canonical(_ text: String) -> String? {
        let hexDigits = Set("0123456789abcdefABCDEF")
        let base = "-0000-1000-8000-00805F9B34FB"
        if text.count == 4 || text.count == 8, text.allSatisfy(hexDigits.contains) {
            return (String(repeating: "0", count: 8 - text.count) + text).uppercased() + base
        }
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(hexDigits.contains) }) else {
            return nil
        }
        return text.uppercased()
    }
}
