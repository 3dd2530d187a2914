import Foundation
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
func expectTop(_ query: String, _ lat: Double, _ lon: Double, within radius: Double = 25,
               kind: PlaceKind? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    let top = Fixture.gazetteer.lookup(query, limit: 5).first
    #expect(top != nil, "no result for \(query)", sourceLocation: sourceLocation)
    #expect(km(top, lat, lon) <= radius, "\(query) -> \(top?.name ?? "nil") is \(Int(km(top, lat, lon))) km off", sourceLocation: sourceLocation)
    if let kind {
        #expect(top?.kind == kind, "\(query) -> kind \(String(describing: top?.kind))", sourceLocation: sourceLocation)
    }
}
