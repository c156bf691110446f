/// Makes the random `DfuNNNNN` bootloader names (SplitMix64 when seeded, for repeatable tests).
struct DFUAlternativeNameGenerator {
    private var state: UInt64?

    init(seed: UInt64?) { state = seed }

    mutating func next() -> String {
        let value: UInt64
        if var seed = state {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var mixed = seed
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            value = mixed ^ (mixed >> 31)
            state = seed
        } else {
            var generator = SystemRandomNumberGenerator()
            value = generator.next()
        }
        var digits = String(value % 100_000)
        while digits.count < 5 { digits = "0" + digits }
        return "Dfu" + digits
    }
}
