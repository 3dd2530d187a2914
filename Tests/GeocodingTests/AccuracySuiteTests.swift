import GeocoderAccuracySuite
import Testing

@testable import Geocoding

// Serialized: hundreds of CPU-bound lookups at once would hold every thread of the shared
// cooperative pool, and the database and server suites running beside them would starve.
@Suite("Accuracy suite (Resources/accuracy-suite.tsv)", .serialized)
struct AccuracySuiteTests {
    static let cases: [AccuracyCase] = (try? AccuracySuite.bundled()) ?? []

    @Test func suiteIsBigAndCoversEveryCategory() {
        #expect(Self.cases.count >= 100)
        let categories = Set(Self.cases.map(\.category))
        for needed in [
            "capital", "smalltown", "region-us", "region-ca", "region-au", "region-de",
            "diacritics", "alternate", "country", "nonsense", "qualified",
            "typo", "wordorder", "address", "postcode", "script", "hanzi",
        ] {
            #expect(categories.contains(needed), "missing category \(needed)")
        }
    }

    @Test func eachNewCategoryHasThirtyQueries() {
        #expect(Self.cases.filter { $0.category == "typo" }.count >= 30)
        #expect(Self.cases.filter { $0.category == "wordorder" || $0.category == "address" }.count >= 30)
        #expect(Self.cases.filter { $0.category == "postcode" }.count >= 30)
        #expect(Self.cases.filter { $0.category == "script" }.count >= 30)
        #expect(Self.cases.filter { $0.category == "hanzi" }.count >= 30)
    }

    @Test("top result near the expected point", arguments: cases)
    func answered(_ c: AccuracyCase) {
        let results = Fixture.gazetteer.lookup(c.query, limit: 5)
        #expect(
            c.isAnswered(by: results),
            "\(c.query) -> \(results.first?.name ?? "nothing"), \(c.errorKm(results).map { "\(Int($0)) km" } ?? "")")
    }
}
