import Foundation
import GeocoderAccuracySuite
import Testing

@testable import Geocoding

/// Postal codes alone or with their city. Expected points are the centres of the cities
/// (or districts) the codes belong to, so the tolerance allows for a code's own area.
@Suite("Postcodes", .serialized)
struct PostcodeTests {
    static let cases = AccuracySuiteTests.cases.filter { $0.category == "postcode" }

    @Test("a postcode gives its place", arguments: cases)
    func postcode(_ c: AccuracyCase) {
        expectAnswered(c)
    }

    @Test func resultNamesTheCodeAndTown() throws {
        let r = try #require(Fixture.gazetteer.lookup("02139", limit: 1).first)
        #expect(r.name == "02139, Cambridge, Massachusetts, United States")
        #expect(r.countryCode == "US")
        #expect(r.region == "Massachusetts")
        #expect(r.kind == .city)
        // A number alone is a postcode in many countries (75001 is Paris and Addison, Texas):
        // offered as a guess; with its country it is sure.
        #expect(r.confidence < 0.8)
        #expect(Fixture.gazetteer.lookup("02139, USA", limit: 1).first?.confidence == 1)
    }

    @Test func aCodeIsNamedAsPrintedNotAsItsKey() throws {
        // The index keeps "00002" for Warsaw's "00-002" and "a0a" for Canada's "A0A"; the text
        // kept after loading holds both spellings.
        let warsaw = try #require(Fixture.gazetteer.lookup("00-002, Poland", limit: 1).first)
        #expect(warsaw.name.hasPrefix("00-002, "))
        let canada = try #require(Fixture.gazetteer.lookup("A0A, Canada", limit: 1).first)
        #expect(canada.name.hasPrefix("A0A, "))
    }

    @Test func keepsOnlyTheTextItReads() throws {
        // Keys, place names and postal codes: about a third of the 35 MB file.
        let file = try #require(Gazetteer.bundledURL).path
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(Fixture.gazetteer.bytes.count < fileSize / 2)
        #expect(Fixture.gazetteer.bytes.count > 10_000_000)
    }

    @Test func aQualifierChoosesTheCountry() throws {
        // 75001 is Paris and also a ZIP code in Texas (Addison).
        expectTop("75001, France", 48.8566, 2.3522, within: 10)
        expectTop("75001 TX", 32.9618, -96.8292, within: 10)
    }

    @Test func unknownNumbersFindNothing() {
        for q in ["12345678", "99999999"] {
            #expect(Fixture.gazetteer.lookup(q, limit: 5).isEmpty, "\(q) -> \(Fixture.gazetteer.lookup(q, limit: 1).map(\.name))")
        }
    }

    @Test func loadsPostcodesOfManyCountries() {
        #expect(Fixture.gazetteer.postcodeCount > 300_000)
    }
}
