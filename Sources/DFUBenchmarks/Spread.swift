/// The median of several runs with their minimum and maximum.
public struct Spread: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The median (the mean of the two middle values for an even count).
    public let median: Double
    /// The smallest value.
    public let minimum: Double
    /// The largest value.
    public let maximum: Double
    /// How many values.
    public let count: Int

    /// The spread of `values`; nil when there are none.
    public init?(_ values: [Double]) {
        guard let first = values.min(), let last = values.max() else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        minimum = first
        maximum = last
        count = values.count
    }

    /// "1.23 (1.20–1.31)" with `digits` decimals, or just the median when all values are equal.
    public func formatted(digits: Int = 2) -> String {
        let median = Self.format(self.median, digits: digits)
        guard minimum != maximum else { return median }
        return "\(median) (\(Self.format(minimum, digits: digits))–\(Self.format(maximum, digits: digits)))"
    }

    /// The median with two decimals and the range.
    public var description: String { formatted() }

    /// `value` rounded to `digits` decimals.
    public static func format(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<max(0, digits) { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if digits == 0 { text = String(text[..<dot]) } else if decimals < digits {
                text += String(repeating: "0", count: digits - decimals)
            }
        }
        return text
    }
}
