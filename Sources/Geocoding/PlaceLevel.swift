/// A level of the gazetteer's places a point can be generalized to.
public enum PlaceLevel: String, Sendable, CaseIterable {
    /// The nearest town of some size (its centre and its name): a town of 15,000 people or
    /// more within 50 km, else the nearest populated place. A hamlet would say more about
    /// where someone lives than a town does.
    case city
    /// The region (state, province) of the nearest populated place.
    case region
    /// The country of the nearest populated place.
    case country
}

extension Gazetteer {
    /// Where a point is shown at `level`: the nearest populated place, its region or its
    /// country, with that place's own coordinates and name ("Springfield, Illinois, United
    /// States"; "Illinois, United States"; "United States"). Nil when no populated place lies
    /// within `maximumDistanceKm` (open sea, the poles).
    public func generalized(
        latitude: Double, longitude: Double, to level: PlaceLevel,
        maximumDistanceKm: Double = 1000
    ) -> GeocodeResult? {
        let town = nearestPlace(
            latitude: latitude, longitude: longitude, maximumDistanceKm: min(50, maximumDistanceKm),
            minimumPopulation: Gazetteer.majorPopulation)
        guard let place = town ?? nearestPlace(latitude: latitude, longitude: longitude, maximumDistanceKm: maximumDistanceKm) else {
            return nil
        }
        let regionIndex = Int(placeRegion[place])
        let countryIndex = Int(regions[regionIndex].country)
        switch level {
        case .city:
            return result(entry: place, confidence: 1)
        case .region where !regions[regionIndex].name.isEmpty:
            return result(entry: placeLatitude.count + regionIndex, confidence: 1)
        case .region, .country:
            return result(entry: placeLatitude.count + regions.count + countryIndex, confidence: 1)
        }
    }
}
