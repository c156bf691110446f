extension DFUServiceUUIDs {
    /// A GATT role whose UUID firmware with custom UUIDs may replace (`dfu upload --uuid ROLE=UUID`,
    /// `dfu-sim --device …,uuid.ROLE=UUID`); the raw value is the role's name on the command line.
    public enum Role: String, CaseIterable, Sendable {
        /// The Secure DFU service (also the service of the buttonless characteristics).
        case secureService = "secure-service"
        /// The Secure DFU Control Point.
        case secureControlPoint = "secure-control-point"
        /// The Secure DFU Packet.
        case securePacket = "secure-packet"
        /// The buttonless characteristic without bonds.
        case buttonlessWithoutBonds = "buttonless-without-bonds"
        /// The buttonless characteristic with bonds.
        case buttonlessWithBonds = "buttonless-with-bonds"
        /// The SDK 12 experimental buttonless service.
        case experimentalButtonlessService = "experimental-buttonless-service"
        /// The SDK 12 experimental buttonless characteristic.
        case experimentalButtonlessCharacteristic = "experimental-buttonless-characteristic"
        /// The Legacy DFU service.
        case legacyService = "legacy-service"
        /// The Legacy DFU Control Point.
        case legacyControlPoint = "legacy-control-point"
        /// The Legacy DFU Packet.
        case legacyPacket = "legacy-packet"
        /// The Legacy DFU Version.
        case legacyVersion = "legacy-version"

        /// Where the role's UUID lives in the table.
        public var keyPath: WritableKeyPath<DFUServiceUUIDs, String> {
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

        /// The role names, comma separated, for messages and help.
        public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

        /// A UUID as written on a command line in canonical 128-bit upper-case form: 16-bit (`FE59`)
        /// and 32-bit values are expanded with the Bluetooth base UUID; nil when it is none of these.
        public static func canonical(_ text: String) -> String? {
            let hexDigits = Set("0123456789abcdefABCDEF")
            let base = "-0000-1000-8000-00805F9B34FB"
            if text.count == 4 || text.count == 8, text.allSatisfy(hexDigits.contains) {
                return (String(repeating: "0", count: 8 - text.count) + text).uppercased() + base
            }
            let groups = text.split(separator: "-", omittingEmptySubsequences: false)
            guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(hexDigits.contains) })
            else {
                return nil
            }
            return text.uppercased()
        }
    }
}
