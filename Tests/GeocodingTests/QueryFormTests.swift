import Foundation
import Testing

@testable import Geocoding

@Suite("Query forms")
struct QueryFormTests {
    let g = Fixture.gazetteer

    @Test func loadsEverything() {
        #expect(g.placeCount > 150_000)
        #expect(g.countryCount > 240)
        #expect(g.regionCount > 3000)
    }

    @Test func bareCity() {
        expectTop("Paris", 48.8566, 2.3522, kind: .city)
        expectTop("Toronto", 43.6532, -79.3832)
    }

    @Test func cityWithRegionCode() {
        expectTop("Cambridge, MA", 42.3736, -71.1097)
        expectTop("Mountain View, CA", 37.3861, -122.0839)
        expectTop("Paris, TX", 33.6609, -95.5555)
        expectTop("Spokane, WA", 47.6588, -117.4260)
        expectTop("London, ON", 42.9849, -81.2453)
        expectTop("Newcastle, NSW", -32.9283, 151.7817)
        expectTop("Augsburg, BY", 48.3705, 10.8978)
    }

    @Test func cityWithRegionName() {
        expectTop("Fresno, California", 36.7378, -119.7871)
        expectTop("Kingston, Ontario", 44.2312, -76.4860)
        expectTop("Würzburg, Bavaria", 49.7913, 9.9534)
        expectTop("Würzburg, Bayern", 49.7913, 9.9534)
    }

    @Test func cityWithCountry() {
        expectTop("Cambridge, UK", 52.2053, 0.1218)
        expectTop("Cambridge, United Kingdom", 52.2053, 0.1218)
        expectTop("Birmingham, UK", 52.4862, -1.8904)
        expectTop("Birmingham, USA", 33.5186, -86.8104)
        expectTop("Birmingham, U.S.", 33.5186, -86.8104)
        expectTop("Valencia, Venezuela", 10.1620, -68.0077)
        expectTop("Valencia, ES", 39.4699, -0.3763)
        expectTop("Hamilton, NZ", -37.7870, 175.2793)
    }

    @Test func cityRegionCountry() {
        expectTop("Portland, Maine, USA", 43.6591, -70.2568)
        expectTop("Perth, WA, Australia", -31.9505, 115.8605)
    }

    @Test func bareCountryAndRegion() {
        expectTop("Costa Rica", 9.75, -83.75, within: 300, kind: .country)
        expectTop("Texas", 31.0, -99.0, within: 800, kind: .region)
        expectTop("Ontario", 50.0, -85.0, within: 1000, kind: .region)
        expectTop("Texas, USA", 31.0, -99.0, within: 800, kind: .region)
    }

    @Test func caseSpacesPunctuation() {
        expectTop("  CAMBRIDGE ,   ma  ", 42.3736, -71.1097)
        expectTop("cambridge,ma", 42.3736, -71.1097)
        expectTop("Cambridge; MA", 42.3736, -71.1097)
        expectTop("Winston Salem", 36.0999, -80.2442)
        expectTop("Winston-Salem, N.C.", 36.0999, -80.2442)
    }

    @Test func diacriticsEitherWay() {
        for q in ["Sao Paulo", "São Paulo", "SÃO PAULO"] { expectTop(q, -23.5505, -46.6333) }
        for q in ["Zurich", "Zürich", "Zuerich"] { expectTop(q, 47.3769, 8.5417) }
        for q in ["Munich", "München", "Muenchen", "Munchen"] { expectTop(q, 48.1351, 11.5820) }
        expectTop("Reykjavík", 64.1466, -21.9426)
    }

    @Test func alternateAndFormerNames() {
        expectTop("Bombay", 19.0760, 72.8777)
        expectTop("Kiev", 50.4501, 30.5234)
        expectTop("Bangalore", 12.9716, 77.5946)
        expectTop("Bengaluru", 12.9716, 77.5946)
    }

    @Test func saintForms() {
        for q in ["St. Louis", "St Louis", "Saint Louis", "ST. LOUIS, MO"] { expectTop(q, 38.6270, -90.1994) }
        expectTop("Saint Petersburg", 59.9343, 30.3351)
        expectTop("St. Petersburg, FL", 27.7676, -82.6403)
    }

    @Test func ambiguityRanksByImportanceUnlessQualified() {
        let springfields = g.lookup("Springfield", limit: 10)
        #expect(springfields.count >= 5)
        #expect(springfields.allSatisfy { $0.name.hasPrefix("Springfield") })
        expectTop("Springfield, IL", 39.7817, -89.6501)
        expectTop("Springfield, MA", 42.1015, -72.5898)
        expectTop("Paris", 48.8566, 2.3522)
        expectTop("Paris, Tennessee", 36.3020, -88.3267)
    }

    @Test func nonsenseGivesNothing() {
        for q in ["asdfghjkl", "xyzzy123", "", "   ", ",,,", "!!!", String(repeating: "a", count: 300)] {
            #expect(g.lookup(q, limit: 5).isEmpty, "\(q.prefix(20)) should give nothing")
        }
        #expect(g.lookup("Paris, Germany", limit: 5).isEmpty)
    }

    @Test func displayNameAndFields() throws {
        let cambridge = try #require(g.lookup("Cambridge, MA", limit: 1).first)
        #expect(cambridge.name == "Cambridge, Massachusetts, United States")
        #expect(cambridge.country == "United States")
        #expect(cambridge.countryCode == "US")
        #expect(cambridge.region == "Massachusetts")
        #expect(cambridge.kind == .city)
        #expect(cambridge.confidence == 1)

        let costaRica = try #require(g.lookup("Costa Rica", limit: 1).first)
        #expect(costaRica.name == "Costa Rica")
        #expect(costaRica.region == nil)
        #expect(costaRica.countryCode == "CR")

        let texas = try #require(g.lookup("Texas", limit: 1).first)
        #expect(texas.name == "Texas, United States")
        #expect(texas.region == "Texas")
    }

    @Test func spans() throws {
        let town = try #require(g.lookup("Bozeman, MT", limit: 1).first)
        #expect(town.span.latitudeDelta >= 0.1 && town.span.latitudeDelta <= 0.35)
        let big = try #require(g.lookup("Tokyo", limit: 1).first)
        #expect(big.span.latitudeDelta > town.span.latitudeDelta)
        let texas = try #require(g.lookup("Texas", limit: 1).first)
        #expect(texas.span.latitudeDelta > 5 && texas.span.latitudeDelta < 20)
        let us = try #require(g.lookup("USA", limit: 1).first)
        #expect(us.span.latitudeDelta > 15 && us.span.longitudeDelta > 40 && us.span.longitudeDelta <= 360)
    }

    @Test func limitIsHonoured() {
        #expect(g.lookup("Springfield", limit: 3).count == 3)
        #expect(g.lookup("Springfield", limit: 0).count == 1)
    }

    @Test func addressFallsBackToTheCityWithLowConfidence() throws {
        let r = try #require(g.lookup("1600 Amphitheatre Parkway, Mountain View, CA", limit: 1).first)
        #expect(km(r, 37.3861, -122.0839) < 25)
        #expect(r.confidence < 0.8)
    }

    @Test func suggestPrefixes() {
        let sf = g.suggestions(prefix: "San Fran", limit: 5)
        #expect(km(sf.first, 37.7749, -122.4194) < 25, "\(sf.map(\.name))")
        let lon = g.suggestions(prefix: "Lon", limit: 5)
        #expect(km(lon.first, 51.5074, -0.1278) < 25, "\(lon.map(\.name))")
        let m = g.suggestions(prefix: "m", limit: 5)
        #expect(m.count == 5)
        let mu = g.suggestions(prefix: "Münch", limit: 3)
        #expect(km(mu.first, 48.1351, 11.5820) < 25, "\(mu.map(\.name))")
        #expect(g.suggestions(prefix: "xyzzyq", limit: 5).isEmpty)
        #expect(g.suggestions(prefix: "", limit: 5).isEmpty)
    }

    @Test func reverseFindsNearestPlace() throws {
        let eiffel = try #require(g.nearest(latitude: 48.8584, longitude: 2.2945))
        #expect(eiffel.countryCode == "FR")
        #expect(km(eiffel, 48.8584, 2.2945) < 10)
        let boston = try #require(g.nearest(latitude: 42.3601, longitude: -71.0589))
        #expect(boston.region == "Massachusetts")
        // Across the antimeridian: Fiji's Taveuni lies near 180°.
        let fiji = try #require(g.nearest(latitude: -16.85, longitude: -179.95))
        #expect(fiji.countryCode == "FJ")
        #expect(g.nearest(latitude: -45, longitude: -130) == nil)  // South Pacific
        #expect(g.nearest(latitude: .nan, longitude: 0) == nil)
    }

    @Test func generalizedPointsNameATownItsRegionOrItsCountry() throws {
        // A street on the edge of Springfield, Illinois, next to a small enclave: the town, not the hamlet.
        let town = try #require(g.generalized(latitude: 39.7817, longitude: -89.6712, to: .city))
        #expect(town.name == "Springfield, Illinois, United States")
        #expect(km(town, 39.7817, -89.6712) < 10)
        #expect(g.generalized(latitude: 39.7817, longitude: -89.6712, to: .region)?.name == "Illinois, United States")
        #expect(g.generalized(latitude: 39.7817, longitude: -89.6712, to: .country)?.name == "United States")
        // Far from any town of size, the nearest populated place still answers.
        let remote = try #require(g.generalized(latitude: 78.2232, longitude: 15.6267, to: .city))
        #expect(remote.countryCode == "SJ")
        #expect(g.generalized(latitude: -48.87, longitude: -123.39, to: .city) == nil)  // Point Nemo
    }

    @Test func protocolMethodsMatchSynchronousOnes() async throws {
        let geocoder: any Geocoder = g
        #expect(try await geocoder.geocode("Paris, TX", limit: 2) == g.lookup("Paris, TX", limit: 2))
        #expect(try await geocoder.suggest(prefix: "Cam", limit: 4) == g.suggestions(prefix: "Cam", limit: 4))
        #expect(try await geocoder.reverse(latitude: 52.52, longitude: 13.4) == g.nearest(latitude: 52.52, longitude: 13.4))
    }

    @Test func concurrentLookupsAgree() async {
        let expected = g.lookup("Cambridge, MA", limit: 3)
        let g = self.g
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask { g.lookup("Cambridge, MA", limit: 3) == expected }
            }
            for await same in group { #expect(same) }
        }
    }

    @Test func resultsEncodeAsJSON() throws {
        let r = try #require(g.lookup("Cambridge, MA", limit: 1).first)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(r)) as? [String: Any]
        #expect(json?["kind"] as? String == "city")
        #expect((json?["span"] as? [String: Any])?["latitudeDelta"] != nil)
        #expect(try JSONDecoder().decode(GeocodeResult.self, from: JSONEncoder().encode(r)) == r)
    }
}

@Suite("Normalizer matches Scripts/build-gazetteer.py")
struct NormalizerTests {
    // Expected keys produced by normalize() in the Python build script.
    @Test(arguments: [
        ("U.S.A.", "usa"), ("Washington, D.C.", "washington dc"), ("St. Louis", "saint louis"),
        ("São Paulo", "sao paulo"), ("Zürich", "zurich"), ("Saint-Martin-d'Hères", "saint martin dheres"),
        ("Łódź", "lodz"), ("Straße", "strasse"), ("  New   YORK ", "new york"), ("Y", "y"),
        ("Ærøskøbing", "aeroskobing"), ("Coeur d’Alene", "coeur dalene"), ("İstanbul", "istanbul"),
        ("Mt. Vernon", "mount vernon"), ("ÖSTERREICH", "osterreich"), ("Ste-Foy", "sainte foy"),
        ("12 de Octubre", "12 de octubre"), ("東京", "东京"), ("臺北", "台北"), ("!!!", ""),
    ])
    func key(_ pair: (String, String)) {
        #expect(Normalizer.key(pair.0) == pair.1)
    }
}
