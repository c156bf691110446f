/// Bluetooth UUID text in one canonical form, so advertised, GATT and user-given UUIDs compare equal.
public enum BlueZUUID {
    /// The 128-bit upper-case form: 16- and 32-bit short forms are expanded with the Bluetooth base UUID.
    public static func canonical(_ text: String) -> String {
        let upper = text.uppercased()
        let isHex = upper.allSatisfy(\.isHexDigit)
        if isHex, upper.count == 4 { return "0000" + upper + "-0000-1000-8000-00805F9B34FB" }
        if isHex, upper.count == 8 { return upper + "-0000-1000-8000-00805F9B34FB" }
        return upper
    }

    /// Whether two UUID texts name the same UUID.
    public static func same(_ first: String, _ second: String) -> Bool { canonical(first) == canonical(second) }
}
