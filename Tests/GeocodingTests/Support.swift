import Foundation
import GeocoderAccuracySuite
import Testing

@testable import Geocoding

/// One gazetteer for all tests (loading takes a fraction of a second).
enum Fixture {
    static let gazetteer: Gazetteer = {
        do { return try Gazetteer.bundled() } catch { fatalError("bundled gazetteer: \(error)") }
    }()
}

func km(_ r: GeocodeResult?, _ lat: Double, _ lon: Double) -> Double {
    guard let r else { return .infinity }
    return Gazetteer.distanceKm(lat, lon, r.latitude, r.longitude)
}

/// Top result of `query` lies within `radius` km of (lat, lon).
func expectTop(
    _ query: String, _ lat: Double, _ lon: Double, within radius: Double = 25,
    kind: PlaceKind? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    let top = Fixture.gazetteer.lookup(query, limit: 5).first
    #expect(top != nil, "no result for \(query)", sourceLocation: sourceLocation)
    #expect(
        km(top, lat, lon) <= radius, "\(query) -> \(top?.name ?? "nil") is \(Int(km(top, lat, lon))) km off", sourceLocation: sourceLocation
    )
    if let kind {
        #expect(top?.kind == kind, "\(query) -> kind \(String(describing: top?.kind))", sourceLocation: sourceLocation)
    }
}

/// A query and where its top result must lie.
struct Expectation: Sendable, CustomStringConvertible {
    var query: String
    var latitude: Double
    var longitude: Double
    var radiusKm: Double

    init(_ query: String, _ latitude: Double, _ longitude: Double, within radiusKm: Double = 25) {
        self.query = query
        self.latitude = latitude
        self.longitude = longitude
        self.radiusKm = radiusKm
    }

    var description: String { query }

    func check(_ results: [GeocodeResult], sourceLocation: SourceLocation = #_sourceLocation) {
        let top = results.first
        #expect(
            km(top, latitude, longitude) <= radiusKm,
            "\(query) -> \(top?.name ?? "nothing") is \(top == nil ? "∞" : String(Int(km(top, latitude, longitude)))) km off",
            sourceLocation: sourceLocation)
    }
}

/// The bundled suite's case `c` is answered by the top result.
func expectAnswered(_ c: AccuracyCase, sourceLocation: SourceLocation = #_sourceLocation) {
    let results = Fixture.gazetteer.lookup(c.query, limit: 5)
    #expect(
        c.isAnswered(by: results),
        "\(c.query) -> \(results.first?.name ?? "nothing"), \(c.errorKm(results).map { "\(Int($0)) km" } ?? "")",
        sourceLocation: sourceLocation)
}
