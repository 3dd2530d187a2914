import GeocoderAccuracySuite
import Testing

@testable import Geocoding

/// Misspelt names (letters swapped, missing, doubled or wrong) still find the place;
/// expected points are the cities' well-known centres.
@Suite("Typo tolerance", .serialized)
struct TypoToleranceTests {
    static let cases = AccuracySuiteTests.cases.filter { $0.category == "typo" }

    @Test("a misspelt name finds the place", arguments: cases)
    func misspelt(_ c: AccuracyCase) {
        expectAnswered(c)
    }

    @Test func correctionsAreLessConfident() throws {
        let boston = try #require(Fixture.gazetteer.lookup("Bostno", limit: 1).first)
        #expect(boston.confidence < 0.8)
        #expect(Fixture.gazetteer.lookup("Boston", limit: 1).first?.confidence == 1)
    }

    @Test func anExactNameIsNeverCorrected() {
        // Real towns that look like misspellings of bigger cities.
        expectTop("Sidney, Ohio", 40.2842, -84.1555)
        expectTop("Pittsburg, Kansas", 37.4109, -94.7049)
        expectTop("Edinburg, Texas", 26.3017, -98.1633)
        // "Sidney" is also a GeoNames alternate name of Sydney: an exact match, not a correction.
        let sidney = Fixture.gazetteer.lookup("Sidney", limit: 5)
        #expect(sidney.allSatisfy { $0.confidence == 1 })
        #expect(sidney.contains { $0.name == "Sidney, Ohio, United States" }, "\(sidney.map(\.name))")
        // A known name in the wrong place is still no match.
        #expect(Fixture.gazetteer.lookup("Paris, Germany", limit: 5).isEmpty)
    }

    @Test func nonsenseStillFindsNothing() {
        for q in ["asdfghjkl", "qwertyuiop", "zzzzqqqq", "xyzzy123", "Blorptown Fnordshire", "jkjkjkjk", "qqq"] {
            #expect(Fixture.gazetteer.lookup(q, limit: 5).isEmpty, "\(q) -> \(Fixture.gazetteer.lookup(q, limit: 1).map(\.name))")
        }
    }

    @Test func closestSpellingAndBiggerPlaceWin() throws {
        // One edit from "Boston" beats two edits from anything else.
        let r = Fixture.gazetteer.lookup("Bostn", limit: 3)
        #expect(km(r.first, 42.3601, -71.0589) < 25, "\(r.map(\.name))")
    }

    @Test func typoSearchStopsAtItsBudgetAndStaysDeterministic() {
        // Half-typed addresses read many ways, each with its own typo walk: the counted
        // work of a call never passes the budget, and the answer does not depend on timing.
        let g = Fixture.gazetteer
        for q in ["Plaza Mayor 1, 28", "5 Avenue Anatole Franc", "Unter den Linden 77, ", "Perth Weste"] {
            let work = FuzzyWork(budget: FuzzyWork.suggestBudget)
            let first = g.suggestions(prefix: q, limit: 5, lookedUp: false, work: work)
            #expect(work.rows > 0 && work.rows <= FuzzyWork.suggestBudget, "\(q): \(work.rows) rows")
            #expect(g.suggestions(prefix: q, limit: 5) == first)
        }
        // Walks of the same name within one query are done once.
        let work = FuzzyWork()
        let once = g.fuzzyKeys("cincinatti", maxDistance: 2, majorPastOneEdit: true, work: work)
        let spent = work.rows
        #expect(g.fuzzyKeys("cincinatti", maxDistance: 2, majorPastOneEdit: true, work: work).map(\.key) == once.map(\.key))
        #expect(work.rows == spent && !once.isEmpty)
    }
}
