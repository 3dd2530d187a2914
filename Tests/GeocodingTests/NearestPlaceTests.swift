import Foundation
import Testing

@testable import Geocoding

/// `nearestPlace` passes over places that cannot be nearer than the best so far without working
/// out their distance; what it answers must still be the nearest place of all.
@Suite("The nearest place")
struct NearestPlaceTests {
    /// The smallest distance from the point to any place of the gazetteer, by looking at each.
    func exhaustiveNearest(_ gazetteer: Gazetteer, _ latitude: Double, _ longitude: Double, minimumPopulation: Int32) -> Double {
        var best = Double.infinity
        for p in 0..<gazetteer.placeCount where gazetteer.placePopulation[p] >= minimumPopulation {
            best = min(
                best,
                Gazetteer.distanceKm(latitude, longitude, Double(gazetteer.placeLatitude[p]), Double(gazetteer.placeLongitude[p])))
        }
        return best
    }

    @Test("at random points on land and sea, near the poles and the date line, it is the nearest of all places")
    func matchesExhaustiveSearch() {
        let gazetteer = Fixture.gazetteer
        var rng = SystemRandomNumberGenerator()
        var points: [(Double, Double)] = (0..<150).map { _ in
            (Double.random(in: -90...90, using: &rng), Double.random(in: -180..<180, using: &rng))
        }
        // Beside places (where cells are crowded and the walk goes both ways from the point's
        // latitude), cities, the date line, the poles, and a longitude outside -180...180.
        points += (0..<150).map { _ in
            let p = Int.random(in: 0..<gazetteer.placeCount, using: &rng)
            return (
                min(90, max(-90, Double(gazetteer.placeLatitude[p]) + Double.random(in: -0.05...0.05, using: &rng))),
                Double(gazetteer.placeLongitude[p]) + Double.random(in: -0.05...0.05, using: &rng)
            )
        }
        points += [(52.52, 13.405), (-36.85, 174.76), (64.8, -179.99), (64.8, 179.99), (89.9, 0), (-89.9, 45), (51.5, 359.9)]
        for (latitude, longitude) in points {
            for minimumPopulation: Int32 in [0, 100_000] {
                let found = gazetteer.nearestPlace(
                    latitude: latitude, longitude: longitude, maximumDistanceKm: 20_000, minimumPopulation: minimumPopulation)
                let expected = exhaustiveNearest(gazetteer, latitude, longitude, minimumPopulation: minimumPopulation)
                let distance = found.map {
                    Gazetteer.distanceKm(latitude, longitude, Double(gazetteer.placeLatitude[$0]), Double(gazetteer.placeLongitude[$0]))
                }
                #expect(distance == expected, "at \(latitude), \(longitude), population \(minimumPopulation)")
            }
        }
    }

    @Test("a point's time zone read from its cell's table is the zone of its nearest place")
    func cellZonesMatchTheSearch() {
        let gazetteer = Fixture.gazetteer
        #expect(gazetteer.hasTimeZones)
        // Inside a country of one zone, cells are one zone all around; near borders they are not.
        let uniform = gazetteer.cellZones.filter { $0 != PlaceTimeZones.mixed }.count
        #expect(uniform > 1_000 && uniform < gazetteer.cellZones.count / 10)
        var rng = SystemRandomNumberGenerator()
        var points: [(Double, Double)] = (0..<3_000).map { _ in
            let p = Int.random(in: 0..<gazetteer.placeCount, using: &rng)
            return (
                min(90, max(-90, Double(gazetteer.placeLatitude[p]) + Double.random(in: -1...1, using: &rng))),
                Double(gazetteer.placeLongitude[p]) + Double.random(in: -1...1, using: &rng)
            )
        }
        points += (0..<1_000).map { _ in (Double.random(in: -90...90, using: &rng), Double.random(in: -180..<180, using: &rng)) }
        // Either side of zone borders: El Paso and Ciudad Juárez, the Spanish-Portuguese border.
        points += [(31.76, -106.49), (31.69, -106.42), (42.0, -8.2), (41.9, -6.9), (51.5, 359.9)]
        for (latitude, longitude) in points {
            #expect(
                gazetteer.timeZone(latitude: latitude, longitude: longitude)
                    == gazetteer.nearestPlaceTimeZone(
                        latitude: latitude, longitude: longitude, maximumDistanceKm: Gazetteer.timeZoneDistanceKm),
                "at \(latitude), \(longitude)")
        }
    }
}
