import Foundation
import OutboundHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Nominatim-compatible HTTP geocoder (`/search?q=&format=jsonv2&limit=`,
/// `/reverse?lat=&lon=&format=jsonv2`), for street addresses the gazetteer cannot know.
/// Off unless configured with a URL. Every request has a timeout.
public struct UpstreamGeocoder: Geocoder {
    /// Sends one request; replaceable in tests.
    public typealias Transport = @Sendable (URLRequest) async throws -> (Data, URLResponse)

    public let baseURL: URL
    public let timeout: TimeInterval
    public let userAgent: String
    /// The server's outbound client: the deadline and the error mapping are its.
    let client: OutboundClient

    /// - Parameters:
    ///   - baseURL: e.g. `https://nominatim.example.org/` (paths `search` and `reverse` are appended).
    ///   - timeout: seconds per request.
    ///   - userAgent: Nominatim's usage policy asks for an identifying User-Agent.
    public init(baseURL: URL, timeout: TimeInterval = 3, userAgent: String = "OnTheMap-Geocoder/1.0", transport: Transport? = nil) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.userAgent = userAgent
        self.client = OutboundClient(userAgent: userAgent, timeout: timeout, maximumConnectionsPerHost: 4, exchange: transport)
    }

    public func geocode(_ query: String, limit: Int, language: String?) async throws -> [GeocodeResult] {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        let limit = min(max(limit, 1), 50)
        let data = try await get(
            "search",
            [
                URLQueryItem(name: "q", value: trimmed),
                URLQueryItem(name: "format", value: "jsonv2"),
                URLQueryItem(name: "addressdetails", value: "1"),
                URLQueryItem(name: "limit", value: String(limit)),
            ] + Self.languageItems(language))
        let places: [NominatimPlace]
        do {
            places = try JSONDecoder().decode([NominatimPlace].self, from: data)
        } catch {
            throw GeocodingError.upstream("unreadable search answer: \(error)")
        }
        return places.prefix(limit).compactMap { $0.result() }
    }

    /// Nominatim has no prefix search; this is a plain search.
    public func suggest(prefix: String, limit: Int, language: String?) async throws -> [GeocodeResult] {
        try await geocode(prefix, limit: limit, language: language)
    }

    /// Nominatim names places in the language its `accept-language` parameter asks for.
    static func languageItems(_ language: String?) -> [URLQueryItem] {
        guard let language, !language.isEmpty else { return [] }
        return [URLQueryItem(name: "accept-language", value: language)]
    }

    public func reverse(latitude: Double, longitude: Double, language: String?) async throws -> GeocodeResult? {
        let data = try await get(
            "reverse",
            [
                URLQueryItem(name: "lat", value: String(latitude)),
                URLQueryItem(name: "lon", value: String(longitude)),
                URLQueryItem(name: "format", value: "jsonv2"),
                URLQueryItem(name: "addressdetails", value: "1"),
            ] + Self.languageItems(language))
        // An error object ({"error": "Unable to geocode"}) means nothing there.
        return (try? JSONDecoder().decode(NominatimPlace.self, from: data))?.result()
    }

    private func get(_ path: String, _ items: [URLQueryItem]) async throws -> Data {
        guard var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false) else {
            throw GeocodingError.upstream("bad base URL \(baseURL)")
        }
        components.queryItems = (components.queryItems ?? []) + items
        guard let url = components.url else { throw GeocodingError.upstream("bad URL for \(path)") }
        let reply: OutboundClient.Reply
        do {
            reply = try await client.send(.init(url: url, headers: [("Accept", "application/json")]))
        } catch let failure as OutboundClient.Failure {
            switch failure {
            case .timedOut(let seconds): throw GeocodingError.upstream("timed out after \(seconds) s")
            case .transport(let reason): throw GeocodingError.upstream(reason)
            }
        }
        let (data, status) = (reply.body, reply.status)
        if status != 200 {
            throw GeocodingError.upstream("HTTP \(status) from \(path)")
        }
        return data
    }
}

/// The parts of a Nominatim `jsonv2` place we use.
struct NominatimPlace: Decodable {
    struct Address: Decodable {
        var country: String?
        var country_code: String?
        var state: String?
        var province: String?
        var region: String?
    }

    var lat: String
    var lon: String
    var display_name: String?
    var name: String?
    var addresstype: String?
    var type: String?
    var boundingbox: [String]?
    var address: Address?

    func result() -> GeocodeResult? {
        guard let latitude = Double(lat), let longitude = Double(lon),
            abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        let kind: PlaceKind
        switch addresstype ?? type ?? "" {
        case "country": kind = .country
        case "state", "province", "region", "state_district": kind = .region
        default: kind = .city
        }
        var span = MapSpan(latitudeDelta: 0.02, longitudeDelta: 0.02)
        if let box = boundingbox?.compactMap(Double.init), box.count == 4 {
            // [south, north, west, east]
            span = MapSpan(latitudeDelta: max(abs(box[1] - box[0]), 0.005), longitudeDelta: max(abs(box[3] - box[2]), 0.005))
        }
        let region = address?.state ?? address?.province ?? address?.region
        return GeocodeResult(
            name: display_name ?? name ?? "\(latitude), \(longitude)",
            latitude: latitude, longitude: longitude, kind: kind,
            country: address?.country ?? "", countryCode: (address?.country_code ?? "").uppercased(),
            region: kind == .country ? nil : region, span: span, confidence: 0.9)
    }
}
