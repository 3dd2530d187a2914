import Testing
@testable import Geocoding

/// Names in their own script (GeoNames alternate names), folded for case, accents and
/// character width. Expected points are the cities' well-known centres.
@Suite("Native scripts", .serialized)
struct NativeScriptTests {
    static let cases = AccuracySuiteTests.cases.filter { $0.category == "script" }

    @Test("a name in its own script finds the place", arguments: cases)
    func nativeName(_ c: AccuracyCase) {
        expectAnswered(c)
    }

    @Test func resultsKeepTheirEnglishDisplayName() throws {
        let r = try #require(Fixture.gazetteer.lookup("Варшава", limit: 1).first)
        #expect(r.countryCode == "PL")
        #expect(r.name.hasPrefix("Warsaw"))
    }
}

@Suite("Type-ahead with typos, scripts and postcodes", .serialized)
struct SuggestTests {
    let g = Fixture.gazetteer

    @Test(arguments: [
        Expectation("Варш", 52.2297, 21.0122),
        Expectation("Моск", 55.7558, 37.6173),
        Expectation("大阪", 34.6937, 135.5023),
        Expectation("Minneapl", 44.9778, -93.2650),
        Expectation("Mineapolis", 44.9778, -93.2650),
        Expectation("Philadelp", 39.9526, -75.1652),
        Expectation("Philidelp", 39.9526, -75.1652),
        Expectation("San Fransis", 37.7749, -122.4194),
        Expectation("Denver Colorado", 39.7392, -104.9903),
        Expectation("0213", 42.3736, -71.1097, within: 15),
        Expectation("80331", 48.1351, 11.5820, within: 10),
    ])
    func suggests(_ c: Expectation) {
        c.check(g.suggestions(prefix: c.query, limit: 5))
    }

    @Test func nonsenseSuggestsNothing() {
        #expect(g.suggestions(prefix: "xyzzyq", limit: 5).isEmpty)
        #expect(g.suggestions(prefix: "qwertyuiop", limit: 5).isEmpty)
    }
}
