import Geocoding
import Hummingbird
import OnTheMapModels
import Storage

/// Where a class shows a point (`MapClass.Precision`): below `exact`, the nearest populated
/// place of the bundled gazetteer, or its region or country, with that place's name as the
/// record's `mapString`. Applied to every write before it is stored, whoever the client, so
/// the exact point and the typed text are never kept.
enum ClassPlacement {
    /// What the class stores and shows for a point; nil for an `exact` class (the point as posted).
    static func place(latitude: Double, longitude: Double, precision: MapClass.Precision) throws -> PlaceRewrite? {
        guard let level = level(precision) else { return nil }
        guard let found = try BundledGazetteer.shared.get().generalized(latitude: latitude, longitude: longitude, to: level) else {
            throw NoPlaceNearby()
        }
        return PlaceRewrite(latitude: rounded(found.latitude), longitude: rounded(found.longitude), mapString: found.name)
    }

    /// The record as the class shows it (unchanged in an `exact` class). Coarsening never
    /// leaves a post exact: a point with no place within the usual distance (an old post far
    /// out at sea, say) goes to the nearest place at any distance, and failing that to the
    /// middle of its 1-degree cell, named by that cell.
    static func rewrite(_ record: StudentInformation, precision: MapClass.Precision) -> PlaceRewrite? {
        guard let level = level(precision) else { return nil }
        if let near = try? place(latitude: record.latitude, longitude: record.longitude, precision: precision) { return near }
        if let far = try? BundledGazetteer.shared.get().generalized(
            latitude: record.latitude, longitude: record.longitude, to: level, maximumDistanceKm: anyDistanceKm)
        {
            return PlaceRewrite(latitude: rounded(far.latitude), longitude: rounded(far.longitude), mapString: far.name)
        }
        return neutralCell(latitude: record.latitude, longitude: record.longitude)
    }

    /// Farther than any two points on Earth.
    static let anyDistanceKm = 20_100.0

    /// The middle of the 1-degree cell holding the point, named by its corner ("12°N 45°W").
    static func neutralCell(latitude: Double, longitude: Double) -> PlaceRewrite {
        let row = min(89, max(-90, Int(latitude.rounded(.down))))
        let column = min(179, max(-180, Int(longitude.rounded(.down))))
        let name = "\(abs(row))°\(row < 0 ? "S" : "N") \(abs(column))°\(column < 0 ? "W" : "E")"
        return PlaceRewrite(latitude: Double(row) + 0.5, longitude: Double(column) + 0.5, mapString: name)
    }

    /// The gazetteer keeps single-precision points: written to four decimals (about 10 m).
    static func rounded(_ degrees: Double) -> Double { (degrees * 10_000).rounded() / 10_000 }

    static func level(_ precision: MapClass.Precision) -> PlaceLevel? {
        switch precision {
        case .exact: nil
        case .city: .city
        case .region: .region
        case .country: .country
        }
    }

    /// Applies the class's precision to a write: the point and the place name become the
    /// place's. `current` is the record being updated (its point stands when the patch has none).
    static func apply(to patch: inout LocationPatch, current: StudentInformation?, precision: MapClass.Precision) throws {
        guard precision != .exact else { return }
        guard let latitude = patch.latitude ?? current?.latitude, let longitude = patch.longitude ?? current?.longitude else { return }
        guard let place = try place(latitude: latitude, longitude: longitude, precision: precision) else { return }
        patch.latitude = place.latitude
        patch.longitude = place.longitude
        patch.mapString = place.mapString
    }

    /// Changes a class's settings (only those named) and, when its precision became coarser
    /// than the database had it, coarsens the class's existing locations (a finer level
    /// cannot bring back what was never kept). Returns the class as it now is (nil when it is
    /// gone) and how many records changed.
    static func change(_ classId: String, _ changes: ClassChanges, store: any OnTheMapStore) async throws -> (MapClass?, Int) {
        let before = changes.precision == nil ? nil : try await store.mapClass(id: classId)?.precision
        guard let changed = try await store.changeClass(id: classId, changes) else { return (nil, 0) }
        guard let precision = changes.precision, let before, precision > before else { return (changed, 0) }
        return (changed, try await store.rewritePlaces(in: classId, only: nil) { rewrite($0, precision: precision) })
    }
}

/// A point with no populated place near it, in a class that shows places.
struct NoPlaceNearby: Error {
    static let message =
        "This class shows where students are by the nearest town, and there is none near this point: choose a place on land."
}

/// `GET /api/locations/placement?latitude=&longitude=`: where the request's class would show
/// this point, so an app can say so before posting ("You will appear at Springfield,
/// Illinois"). For its readers; nothing is stored.
struct PlacementController: Sendable {
    func addRoutes(to group: RouterGroup<ClassRequestContext>) {
        group.get("placement", use: placement)
    }

    @Sendable func placement(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try context.classAccess.requireReader(.api)
        let query = request.uri.queryParameters
        guard let latitude = query["latitude"].flatMap({ Double(String($0)) }), (-90...90).contains(latitude),
            let longitude = query["longitude"].flatMap({ Double(String($0)) }), (-180...180).contains(longitude)
        else {
            throw APIError(.badRequest, "invalid_coordinates", "latitude (-90 to 90) and longitude (-180 to 180) are required numbers.")
        }
        let precision = context.mapClass.precision
        do {
            let place = try ClassPlacement.place(latitude: latitude, longitude: longitude, precision: precision)
            return try JSONResponse.make(
                PlacementView(
                    precision: precision, name: place?.mapString,
                    latitude: place?.latitude ?? latitude, longitude: place?.longitude ?? longitude))
        } catch is NoPlaceNearby {
            throw APIError(.unprocessableContent, "no_place_nearby", NoPlaceNearby.message)
        }
    }
}

struct PlacementView: Encodable {
    let precision: MapClass.Precision
    /// The place's name; nil for an `exact` class (the point is shown as posted, with its own text).
    let name: String?
    let latitude: Double
    let longitude: Double
}
