import GeocoderAccuracySuite
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

/// Chinese typed in traditional or simplified characters: both fold to simplified keys,
/// so either finds names stored in the other (臺北 and 台北, 紐約 and 纽约).
@Suite("Traditional and simplified Chinese", .serialized)
struct ChineseScriptTests {
    static let cases = AccuracySuiteTests.cases.filter { $0.category == "hanzi" }

    @Test("a Chinese name in either script finds the place", arguments: cases)
    func chineseName(_ c: AccuracyCase) {
        expectAnswered(c)
    }

    @Test func traditionalAndSimplifiedShareAKey() {
        #expect(Normalizer.key("臺北") == "台北")
        #expect(Normalizer.key("廣州市") == "广州市")
        #expect(Normalizer.key("東京") == "东京")
        #expect(Normalizer.key("台北") == "台北")
        // Characters outside the table, and other scripts, are left alone.
        #expect(Normalizer.key("香港") == "香港")
        #expect(Normalizer.key("ソウル") == "ソウル")
    }

    @Test func bothSpellingsGiveTheSamePlace() throws {
        for (traditional, simplified) in [("臺中", "台中"), ("紐約", "纽约"), ("開普敦", "开普敦")] {
            let a = try #require(Fixture.gazetteer.lookup(traditional, limit: 1).first)
            let b = try #require(Fixture.gazetteer.lookup(simplified, limit: 1).first)
            #expect(a.name == b.name && a.latitude == b.latitude && a.longitude == b.longitude)
        }
    }

    @Test func typeAheadInTraditionalCharacters() throws {
        // "紐" alone is too short to mean anything; "紐約" finds New York while typing.
        let r = try #require(Fixture.gazetteer.suggestions(prefix: "紐約", limit: 5).first)
        #expect(r.countryCode == "US")
        let t = try #require(Fixture.gazetteer.suggestions(prefix: "臺中", limit: 5).first)
        #expect(t.countryCode == "TW")
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
