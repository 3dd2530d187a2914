import Foundation

/// The gazetteer first; the upstream only when the gazetteer has no confident answer
/// (nothing found, or found only by dropping part of the query, as for a street
/// address). An upstream failure or timeout never breaks the offline answer.
public struct FallbackGeocoder: Geocoder {
    public let primary: any Geocoder
    public let upstream: (any Geocoder)?
    /// Offline answers whose top confidence is at least this are returned without asking upstream.
    public let confidenceThreshold: Double

    public init(primary: any Geocoder, upstream: (any Geocoder)?, confidenceThreshold: Double = 0.8) {
        self.primary = primary
        self.upstream = upstream
        self.confidenceThreshold = confidenceThreshold
    }

    public func geocode(_ query: String, limit: Int, language: String?) async throws -> [GeocodeResult] {
        let local = try await primary.geocode(query, limit: limit, language: language)
        if let top = local.first, top.confidence >= confidenceThreshold { return local }
        guard let upstream else { return local }
        do {
            let remote = try await upstream.geocode(query, limit: limit, language: language)
            return remote.isEmpty ? local : remote
        } catch {
            return local
        }
    }

    /// Type-ahead stays offline: it runs on every keystroke.
    public func suggest(prefix: String, limit: Int, language: String?) async throws -> [GeocodeResult] {
        try await primary.suggest(prefix: prefix, limit: limit, language: language)
    }

    public func reverse(latitude: Double, longitude: Double, language: String?) async throws -> GeocodeResult? {
        if let local = try await primary.reverse(latitude: latitude, longitude: longitude, language: language) { return local }
        guard let upstream else { return nil }
        return try? await upstream.reverse(latitude: latitude, longitude: longitude, language: language)
    }
}
