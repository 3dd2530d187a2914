import Foundation

/// A source of geotagged photos: Flickr, Wikimedia Commons, or a stub in tests.
public protocol PhotoProvider: Sendable {
    /// Stored with each photo: `flickr`, `wikimedia`.
    var name: String { get }
    /// Shown to people in error messages: "Flickr", "Wikimedia Commons".
    var displayName: String { get }
    /// The highest result page worth asking for at this page size (Flickr serves at most
    /// the first 4,000 results of a search).
    func pageLimit(perPage: Int) -> Int
    /// One page of photos near a point, nearest or most relevant first.
    func search(_ search: PhotoSearch) async throws -> PhotoPage
}

public struct PhotoSearch: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var perPage: Int
    /// 1-based.
    public var page: Int

    public init(latitude: Double, longitude: Double, perPage: Int, page: Int) {
        self.latitude = latitude
        self.longitude = longitude
        self.perPage = perPage
        self.page = page
    }
}

/// One page of search results.
public struct PhotoPage: Sendable, Equatable {
    public var page: Int
    /// Pages the provider reports for this search (0 when there are no results).
    public var pages: Int
    public var total: Int
    public var photos: [RemotePhoto]

    public init(page: Int, pages: Int, total: Int, photos: [RemotePhoto]) {
        self.page = page
        self.pages = pages
        self.total = total
        self.photos = photos
    }
}

/// A photo as a provider describes it; its image is at `imageURL`.
public struct RemotePhoto: Sendable, Equatable {
    public var remoteID: String
    public var imageURL: URL
    public var title: String
    public var author: String
    public var license: String?
    /// The photo's own page at the provider, for credits.
    public var pageURL: URL?

    public init(remoteID: String, imageURL: URL, title: String, author: String, license: String? = nil, pageURL: URL? = nil) {
        self.remoteID = remoteID
        self.imageURL = imageURL
        self.title = title
        self.author = author
        self.license = license
        self.pageURL = pageURL
    }
}

/// Why a provider gave no photos. Every case reads as a sentence a person can act on.
/// A provider's search address: `baseURL` with `items` added to its query (`finish` may touch
/// the result last), or `badResponse` naming what could not be made of it.
func searchURL(
    _ baseURL: URL, provider: String, adding items: [URLQueryItem], finish: (inout URLComponents) -> Void = { _ in }
) throws -> URL {
    guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
        throw PhotoProviderError.badResponse(provider: provider, reason: "the base URL \(baseURL) is not usable")
    }
    components.queryItems = (components.queryItems ?? []) + items
    finish(&components)
    guard let url = components.url else {
        throw PhotoProviderError.badResponse(provider: provider, reason: "cannot build a search URL from \(baseURL)")
    }
    return url
}

public enum PhotoProviderError: Error, Equatable, CustomStringConvertible {
    /// HTTP 429: too many requests with this key or from this address.
    case rateLimited(provider: String, retryAfter: Int?)
    /// The provider answered but refused, e.g. Flickr's HTTP 200 `{"stat":"fail","code":100,...}`.
    case rejected(provider: String, code: String, message: String)
    /// No answer: connection refused, DNS, timeout, or a 5xx.
    case unavailable(provider: String, reason: String)
    /// An answer we cannot read.
    case badResponse(provider: String, reason: String)

    /// A short machine-readable code for API error bodies.
    public var code: String {
        switch self {
        case .rateLimited: "provider_rate_limited"
        case .rejected: "provider_rejected"
        case .unavailable: "provider_unavailable"
        case .badResponse: "provider_bad_response"
        }
    }

    public var description: String {
        switch self {
        case .rateLimited(let provider, let retryAfter):
            "\(provider) is limiting how often this server may ask for photos; try again "
                + (retryAfter.map { "in \($0) seconds." } ?? "in a few minutes.")
        case .rejected(let provider, let code, let message):
            "\(provider) refused the photo search: \(message) (code \(code))."
        case .unavailable(let provider, let reason):
            "\(provider) could not be reached: \(reason)."
        case .badResponse(let provider, let reason):
            "\(provider) sent an answer this server cannot read: \(reason)."
        }
    }
}
