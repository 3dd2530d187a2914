import Foundation

/// Flickr's `flickr.photos.search` by latitude, longitude and radius (docs/api/photo-providers.md §3).
/// Needs an API key (`FLICKR_API_KEY`).
public struct FlickrProvider: PhotoProvider {
    public let name = "flickr"
    public let displayName = "Flickr"
    public static let defaultBaseURL = URL(string: "https://api.flickr.com/services/rest/")!
    /// "Flickr will return at most the first 4,000 results for any given search query."
    static let resultCap = 4000

    let baseURL: URL
    let apiKey: String
    let radiusKilometers: Double
    let fetcher: HTTPFetcher
    let timeout: TimeInterval

    public init(
        apiKey: String, baseURL: URL = FlickrProvider.defaultBaseURL, radiusKilometers: Double = 5, fetcher: HTTPFetcher,
        timeout: TimeInterval = 10
    ) {
        self.apiKey = apiKey
        self.baseURL = baseURL
        self.radiusKilometers = min(max(radiusKilometers, 0.1), 32)
        self.fetcher = fetcher
        self.timeout = timeout
    }

    public func pageLimit(perPage: Int) -> Int {
        max(1, Self.resultCap / max(1, perPage))
    }

    public func search(_ search: PhotoSearch) async throws -> PhotoPage {
        let url = try requestURL(search)
        let body = try await fetcher.searchResults(url, timeout: timeout, provider: displayName)
        return try Self.decode(body, requestedPage: search.page, provider: displayName)
    }

    func requestURL(_ search: PhotoSearch) throws -> URL {
        try searchURL(
            baseURL, provider: displayName,
            adding: [
                URLQueryItem(name: "method", value: "flickr.photos.search"),
                URLQueryItem(name: "api_key", value: apiKey),
                URLQueryItem(name: "lat", value: String(format: "%.6f", search.latitude)),
                URLQueryItem(name: "lon", value: String(format: "%.6f", search.longitude)),
                URLQueryItem(name: "radius", value: String(radiusKilometers)),
                URLQueryItem(name: "radius_units", value: "km"),
                // A date is a "limiting agent": without one, geo searches only see the last 12 hours.
                URLQueryItem(name: "min_upload_date", value: "946684800"),
                URLQueryItem(name: "safe_search", value: "1"),
                URLQueryItem(name: "content_type", value: "1"),
                URLQueryItem(name: "media", value: "photos"),
                URLQueryItem(name: "extras", value: "url_m,owner_name,license"),
                URLQueryItem(name: "per_page", value: String(search.perPage)),
                URLQueryItem(name: "page", value: String(search.page)),
                URLQueryItem(name: "format", value: "json"),
                URLQueryItem(name: "nojsoncallback", value: "1"),
            ])
    }

    struct Envelope: Decodable {
        struct Photos: Decodable {
            let page: LenientInt?
            let pages: LenientInt?
            let total: LenientInt?
            let photo: [Item]?
        }
        struct Item: Decodable {
            let id: LenientString
            let owner: String?
            let ownername: String?
            let title: String?
            let license: LenientString?
            let url_m: String?
        }
        let stat: String?
        let code: LenientInt?
        let message: String?
        let photos: Photos?
    }

    static func decode(_ body: Data, requestedPage: Int, provider: String) throws -> PhotoPage {
        var data = body
        // Without nojsoncallback Flickr wraps the object: jsonFlickrApi({...}).
        if let text = String(data: body, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            text.hasPrefix("jsonFlickrApi("), text.hasSuffix(")")
        {
            data = Data(text.dropFirst("jsonFlickrApi(".count).dropLast().utf8)
        }
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: data)
        } catch {
            throw PhotoProviderError.badResponse(provider: provider, reason: "not the JSON of flickr.photos.search")
        }
        if envelope.stat != "ok" {
            // HTTP 200 with {"stat":"fail","code":100,"message":"Invalid API Key (Key has invalid format)"}.
            throw PhotoProviderError.rejected(
                provider: provider, code: envelope.code.map { String($0.value) } ?? "?",
                message: envelope.message ?? "stat \(envelope.stat ?? "missing")"
            )
        }
        guard let photos = envelope.photos else {
            throw PhotoProviderError.badResponse(provider: provider, reason: "no photos object")
        }
        let items = (photos.photo ?? []).compactMap { item -> RemotePhoto? in
            guard let text = item.url_m, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                return nil
            }
            let title = item.title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let author = [item.ownername, item.owner].compactMap { $0 }.first { !$0.isEmpty } ?? "a Flickr member"
            return RemotePhoto(
                remoteID: item.id.value, imageURL: url, title: title.isEmpty ? "Untitled" : title, author: author,
                license: item.license.flatMap { licenseNames[$0.value] },
                pageURL: item.owner.flatMap { URL(string: "https://www.flickr.com/photos/\($0)/\(item.id.value)") }
            )
        }
        return PhotoPage(
            page: photos.page?.value ?? requestedPage, pages: photos.pages?.value ?? 0,
            total: photos.total?.value ?? items.count, photos: items
        )
    }

    /// `flickr.photos.licenses.getInfo`.
    static let licenseNames: [String: String] = [
        "0": "All Rights Reserved", "1": "CC BY-NC-SA 2.0", "2": "CC BY-NC 2.0", "3": "CC BY-NC-ND 2.0",
        "4": "CC BY 2.0", "5": "CC BY-SA 2.0", "6": "CC BY-ND 2.0", "7": "No known copyright restrictions",
        "8": "United States Government Work", "9": "CC0 1.0", "10": "Public Domain Mark 1.0",
    ]
}
