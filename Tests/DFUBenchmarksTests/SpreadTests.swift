import DFUBenchmarks
import Testing

@Suite struct SpreadTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let values: [Double]
        let median: Double
        let minimum: Double
        let maximum: Double
        var testDescription: String { "\(values)" }
    }

    static let cases = [
        Case(values: [3], median: 3, minimum: 3, maximum: 3),
        Case(values: [5, 1, 3], median: 3, minimum: 1, maximum: 5),
        Case(values: [4, 1, 3, 2], median: 2.5, minimum: 1, maximum: 4),
    ]

    @Test(arguments: cases)
    func medianIsTheMiddleValueOrTheMeanOfTheTwoMiddleOnes(_ testCase: Case) throws {
        let spread = try #require(Spread(testCase.values))
        #expect(spread.median == testCase.median)
        #expect(spread.minimum == testCase.minimum)
        #expect(spread.maximum == testCase.maximum)
        #expect(spread.count == testCase.values.count)
    }

    @Test func noValuesGiveNoSpread() {
        #expect(Spread([]) == nil)
    }

    @Test(arguments: [(1.0, 2, "1.00"), (0.9555, 3, "0.956"), (12.0, 0, "12"), (2.25, 1, "2.3")])
    func formatRoundsToTheGivenDecimals(_ value: Double, _ digits: Int, _ expected: String) {
        #expect(Spread.format(value, digits: digits) == expected)
    }

    @Test func formattedShowsTheRangeOnlyWhenTheValuesDiffer() throws {
        #expect(try #require(Spread([2, 2, 2])).formatted(digits: 1) == "2.0")
        #expect(try #require(Spread([1, 2, 4])).formatted(digits: 1) == "2.0 (1.0–4.0)")
    }
}
