import GeocoderAccuracySuite
import Testing

@testable import Geocoding

/// Qualifiers without commas, and street addresses that give their city (house and
/// street skipped, state and postcode used to choose between same-named cities).
@Suite("Free word order and addresses", .serialized)
struct WordOrderAndAddressTests {
    static let qualifiedWithoutCommas = AccuracySuiteTests.cases.filter { $0.category == "wordorder" }

    static let addresses = AccuracySuiteTests.cases.filter { $0.category == "address" }

    @Test("qualifiers without commas", arguments: qualifiedWithoutCommas)
    func withoutCommas(_ c: AccuracyCase) {
        expectAnswered(c)
    }

    @Test("a street address gives its city", arguments: addresses)
    func address(_ c: AccuracyCase) {
        expectAnswered(c)
    }

    @Test func addressesAreLessConfidentThanPlaces() throws {
        let r = try #require(Fixture.gazetteer.lookup("77 Massachusetts Ave, Cambridge, MA 02139", limit: 1).first)
        #expect(r.confidence < 0.8)
        #expect(r.region == "Massachusetts")
    }

    @Test func theZipCodeAloneChoosesBetweenCambridges() {
        expectTop("Cambridge 02139", 42.3736, -71.1097)
        expectTop("Cambridge CB2", 52.2053, 0.1218)
    }
}
