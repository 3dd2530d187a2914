import GeocoderAccuracySuite
import Testing

@testable import Geocoding

/// What a student types in the add-location field, in every script the app is written in.
@Suite("Place entry in every script", .serialized)
struct PlaceEntryTests {
    /// "city, country" with each script's own comma, semicolon, full stop or danda.
    @Test(
        "each script's punctuation separates city and country",
        arguments: [
            ("القاهرة، مصر", "EG"), ("لاغوس، نيجيريا", "NG"), ("القاهرة؛ مصر", "EG"),
            ("北京，中国", "CN"), ("上海、中国", "CN"), ("东京。日本", "JP"), ("大阪，日本", "JP"),
            ("मुंबई। भारत", "IN"), ("दिल्ली, भारत", "IN"), ("मुंबई॥", "IN"),
            ("Paris；France", "FR"), ("Lagos､Nigeria", "NG"), ("Berlin\nGermany", "DE"),
        ])
    func nativePunctuation(query: String, country: String) throws {
        let top = try #require(Fixture.gazetteer.lookup(query, limit: 3).first, "nothing for \(query)")
        #expect(top.countryCode == country, "\(query) -> \(top.name)")
        #expect(top.confidence >= 0.8, "\(query) -> \(top.name) only \(top.confidence)")
    }

    @Test func fullWidthAndDashVariantsReadAsAscii() throws {
        for query in ["Ｐａｒｉｓ，Ｆｒａｎｃｅ", "Saint\u{2013}Denis, France", "\u{201C}Lyon\u{201D}, France", "Aix\u{2011}en\u{2011}Provence"] {
            let top = try #require(Fixture.gazetteer.lookup(query, limit: 1).first, "nothing for \(query)")
            #expect(top.countryCode == "FR", "\(query) -> \(top.name)")
        }
    }

    @Test func countriesTypedInTheStudentsLanguageQualifyAndStandAlone() throws {
        #expect(Fixture.gazetteer.lookup("Alemania", limit: 1).first?.countryCode == "DE")
        #expect(Fixture.gazetteer.lookup("مصر", limit: 1).first?.countryCode == "EG")
        #expect(Fixture.gazetteer.lookup("中国", limit: 1).first?.countryCode == "CN")
        let munich = try #require(Fixture.gazetteer.lookup("Múnich, Alemania", limit: 1).first)
        #expect(munich.countryCode == "DE" && munich.confidence == 1)
        // A town called so in its own right is not displaced by a foreign name of a country.
        #expect(Fixture.gazetteer.lookup("Brasília", limit: 1).first?.kind == .city)
    }

    @Test func namesComeInTheReadersLanguage() throws {
        let cairo = try #require(Fixture.gazetteer.lookup("Cairo", limit: 1, language: "ar").first)
        #expect(cairo.name == "القاهرة، مصر")
        #expect(cairo.country == "مصر" && cairo.region == nil)
        #expect(Fixture.gazetteer.lookup("Berlin", limit: 1, language: "zh-Hans").first?.name == "柏林，德国")
        #expect(Fixture.gazetteer.lookup("São Paulo", limit: 1, language: "pt-BR").first?.name == "São Paulo, Brasil")
        #expect(Fixture.gazetteer.lookup("Berlin", limit: 1, language: "es").first?.name == "Berlín, Alemania")
        // Without a name in that language, a town keeps its own and its region tells twins apart.
        let twins = Fixture.gazetteer.lookup("Cairo, United States", limit: 3, language: "ar").map(\.name)
        #expect(Set(twins).count == twins.count, "\(twins)")
        // English, or no language: the gazetteer's names as before.
        #expect(
            Fixture.gazetteer.lookup("Cairo", limit: 1, language: "en").first?.name
                == Fixture.gazetteer.lookup("Cairo", limit: 1).first?.name)
        #expect(Fixture.gazetteer.nearest(latitude: 52.52, longitude: 13.40, language: "ar")?.name.hasSuffix("، ألمانيا") == true)
    }

    /// What the issue's students saw: nonsense and everyday words landing on real towns.
    @Test(
        "nonsense and everyday words get no confident answer",
        arguments: ["asdf", "school", "my house", "home", "casa", "maison", "zuhause", "家", "بيت", "घर", "qwerty", "test"])
    func noConfidentAnswer(query: String) {
        let top = Fixture.gazetteer.lookup(query, limit: 5).first
        #expect((top?.confidence ?? 0) < 0.8, "\(query) -> \(top?.name ?? "") at \(top?.confidence ?? 0)")
    }

    static let noPlace: [String] = ((try? AccuracySuite.noPlace()) ?? []).map(\.query)

    @Test func theNoPlaceSetIsBigAndCoversEveryLanguage() throws {
        let all = try AccuracySuite.noPlace()
        #expect(all.count >= 100)
        #expect(Set(all.map(\.category)).isSuperset(of: ["keyboard", "everyday", "de", "es", "fr", "pt", "ar", "hi", "zh"]))
    }

    @Test("no query of the no-place set gets a confident answer", arguments: noPlace)
    func noPlaceSet(query: String) {
        let top = Fixture.gazetteer.lookup(query, limit: 5).first
        #expect((top?.confidence ?? 0) < AccuracySuite.confident, "\(query) -> \(top?.name ?? "") at \(top?.confidence ?? 0)")
    }

    @Test func sayingMoreMakesAnEverydayWordAPlace() throws {
        let home = try #require(Fixture.gazetteer.lookup("Home, WA", limit: 1).first)
        #expect(home.countryCode == "US" && home.confidence == 1)
    }

    @Test func alternativesAreTheSameNameElsewhereOrTheRegion() {
        let newYork = Fixture.gazetteer.lookup("New York", limit: 5)
        #expect(newYork.first?.name.hasPrefix("New York City") == true)
        for other in newYork.dropFirst() {
            #expect(other.kind == .region || other.name.hasPrefix("New York"), "New York offers \(other.name)")
        }
        let cambridge = Fixture.gazetteer.lookup("Cambridge, MA", limit: 5)
        #expect(cambridge.map(\.name).allSatisfy { $0.hasPrefix("Cambridge") }, "\(cambridge.map(\.name))")
        // Same name elsewhere stays on offer.
        #expect(Fixture.gazetteer.lookup("Paris", limit: 5).contains { $0.countryCode == "US" })
    }
}
