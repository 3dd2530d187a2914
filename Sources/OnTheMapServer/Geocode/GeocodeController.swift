import Foundation
import Geocoding
import Hummingbird

/// `GET /api/geocode`, `/api/geocode/suggest` and `/api/geocode/reverse`: public, answered
/// from the in-memory gazetteer, rate limited per client address.
struct GeocodeController: Sendable {
    let geocoder: any Geocoder
    let limiter: RateLimiter

    static let maximumQueryLength = 200
    static let defaultLimit = 5
    static let maximumLimit = 20

    struct Results: Encodable {
        let results: [GeocodeResult]
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(use: geocode)
        group.get("suggest", use: suggest)
        group.get("reverse", use: reverse)
    }

    @Sendable func geocode(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await limiter.admit(context.clientAddress)
        let (query, limit) = try Self.queryAndLimit(request)
        return try JSONResponse.make(Results(results: try await geocoder.geocode(query, limit: limit, language: request.language.tag)))
    }

    @Sendable func suggest(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await limiter.admit(context.clientAddress)
        let (query, limit) = try Self.queryAndLimit(request)
        return try JSONResponse.make(
            Results(results: try await geocoder.suggest(prefix: query, limit: limit, language: request.language.tag)))
    }

    @Sendable func reverse(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await limiter.admit(context.clientAddress)
        let parameters = request.uri.queryParameters
        guard let latitude = parameters["lat"].flatMap({ Double(String($0)) }), (-90...90).contains(latitude),
            let longitude = parameters["lon"].flatMap({ Double(String($0)) }), (-180...180).contains(longitude)
        else {
            throw APIError(.badRequest, "invalid_coordinates", "Give lat between -90 and 90 and lon between -180 and 180.")
        }
        let place = try await geocoder.reverse(latitude: latitude, longitude: longitude, language: request.language.tag)
        return try JSONResponse.make(Results(results: place.map { [$0] } ?? []))
    }

    static func queryAndLimit(_ request: Request) throws -> (String, Int) {
        let parameters = request.uri.queryParameters
        let query = parameters["q"].map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !query.isEmpty else {
            throw APIError(.badRequest, "missing_query", "Say which place to look up: /api/geocode?q=Cambridge, MA")
        }
        guard query.count <= maximumQueryLength else {
            throw APIError(.badRequest, "query_too_long", "Place names are at most \(maximumQueryLength) characters.")
        }
        var limit = defaultLimit
        if let text = parameters["limit"] {
            guard let value = Int(String(text)), value >= 1 else {
                throw APIError(.badRequest, "invalid_limit", "limit must be a whole number from 1 to \(maximumLimit).")
            }
            limit = min(value, maximumLimit)
        }
        return (query, limit)
    }
}

/// The bundled gazetteer, read once per process: servers built in the same process (tests)
/// share it instead of each spending the load time and memory again.
enum BundledGazetteer {
    static let shared: Result<Gazetteer, any Error> = Result { try Gazetteer.bundled() }

    /// Starts loading `shared` on a thread outside Swift's concurrency pool (whose threads must
    /// not block), if nothing has yet; whoever reads `shared` meanwhile waits for it.
    static func loadAhead() {
        Thread.detachNewThread { _ = shared }
    }
}
