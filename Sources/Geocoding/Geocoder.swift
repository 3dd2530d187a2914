import Foundation

/// What a result stands for.
public enum PlaceKind: String, Codable, Sendable {
    case city, region, country
}

/// A suggested map span in degrees (MapKit's `MKCoordinateSpan` shape).
public struct MapSpan: Codable, Sendable, Equatable {
    public var latitudeDelta: Double
    public var longitudeDelta: Double

    public init(latitudeDelta: Double, longitudeDelta: Double) {
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
    }
}

/// One answer of a geocoder.
public struct GeocodeResult: Codable, Sendable, Equatable {
    /// Display name, e.g. "Cambridge, Massachusetts, United States".
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var kind: PlaceKind
    /// Country name, e.g. "United States".
    public var country: String
    /// ISO 3166-1 alpha-2 code, e.g. "US".
    public var countryCode: String
    /// First-level region (state, province) name, when known.
    public var region: String?
    /// Suggested map span: small for a town, the extent for a region or country.
    public var span: MapSpan
    /// 0...1: how sure the geocoder is that this is what was meant. The gazetteer gives
    /// 1 for a name that matched exactly with all qualifiers, less when it had to drop
    /// part of the query (a street, an unknown qualifier).
    public var confidence: Double

    public init(
        name: String, latitude: Double, longitude: Double, kind: PlaceKind,
        country: String, countryCode: String, region: String?, span: MapSpan,
        confidence: Double = 1
    ) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.kind = kind
        self.country = country
        self.countryCode = countryCode
        self.region = region
        self.span = span
        self.confidence = confidence
    }
}

/// Turns place names into coordinates and back. `language` (a BCP 47 tag such as "ar" or
/// "pt-BR") asks for names in that language where the geocoder has them; nil keeps its own.
public protocol Geocoder: Sendable {
    /// Best first; `[]` when nothing sensible matches.
    func geocode(_ query: String, limit: Int, language: String?) async throws -> [GeocodeResult]
    /// Type-ahead: places whose name starts with `prefix`, best first.
    func suggest(prefix: String, limit: Int, language: String?) async throws -> [GeocodeResult]
    /// The nearest populated place, or nil when none is near.
    func reverse(latitude: Double, longitude: Double, language: String?) async throws -> GeocodeResult?
}

extension Geocoder {
    public func geocode(_ query: String, limit: Int) async throws -> [GeocodeResult] {
        try await geocode(query, limit: limit, language: nil)
    }

    public func suggest(prefix: String, limit: Int) async throws -> [GeocodeResult] {
        try await suggest(prefix: prefix, limit: limit, language: nil)
    }

    public func reverse(latitude: Double, longitude: Double) async throws -> GeocodeResult? {
        try await reverse(latitude: latitude, longitude: longitude, language: nil)
    }
}

/// Errors of the geocoders in this module.
public enum GeocodingError: Error, Sendable, Equatable {
    /// The bundled or given data file is missing or malformed.
    case invalidData(String)
    /// The upstream service answered with something other than HTTP 200 + JSON.
    case upstream(String)
}
