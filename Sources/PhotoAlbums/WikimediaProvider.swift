import Foundation

/// Wikimedia Commons geosearch in its generator form, which returns image URLs in the same
/// call (docs/api/photo-providers.md §4). No key; a descriptive User-Agent is required (see `HTTPFetcher`).
///
/// GeoData's geosearch has no offset, so one call asks for a window of up to `window` files
/// near the point and pages are slices of it: "New Collection" picks another slice.
public struct WikimediaProvider: PhotoProvider {
    public let name = "wikimedia"
    public let displayName = "Wikimedia Commons"
    public static let defaultBaseURL = URL(string: "https://commons.wikimedia.org/w/api.php")!
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "tif", "tiff"]

    let baseURL: URL
    let radiusMeters: Int
    let window: Int
    let thumbnailWidth: Int
    let fetcher: HTTPFetcher
    let timeout: TimeInterval

    /// - Parameters:
    ///   - radiusMeters: 10 to 10,000 (the API's range).
    ///   - window: files asked for per search (thumbnails are scaled for up to 50 per request).
    public init(
        baseURL: URL = WikimediaProvider.defaultBaseURL, radiusMeters: Int = 10_000, window: Int = 50,
        thumbnailWidth: Int = 500, fetcher: HTTPFetcher, timeout: TimeInterval = 10
    ) {
        self.baseURL = baseURL
        self.radiusMeters = min(max(radiusMeters, 10), 10_000)
        self.window = min(max(window, 1), 500)
        self.thumbnailWidth = thumbnailWidth
        self.fetcher = fetcher
        self.timeout = timeout
    }

    public func pageLimit(perPage: Int) -> Int {
        max(1, (window + max(1, perPage) - 1) / max(1, perPage))
    }

    public func search(_ search: PhotoSearch) async throws -> PhotoPage {
        let url = try requestURL(search)
        let body = try await fetcher.searchResults(url, timeout: timeout, provider: displayName)
        let all = try Self.decode(body, provider: displayName)
        let perPage = max(1, search.perPage)
        let pages = (all.count + perPage - 1) / perPage
        let page = max(1, search.page)
        let slice = all.dropFirst((page - 1) * perPage).prefix(perPage)
        return PhotoPage(page: page, pages: pages, total: all.count, photos: Array(slice))
    }

    func requestURL(_ search: PhotoSearch) throws -> URL {
        try searchURL(
            baseURL, provider: displayName,
            adding: [
                URLQueryItem(name: "action", value: "query"),
                URLQueryItem(name: "format", value: "json"),
                URLQueryItem(name: "generator", value: "geosearch"),
                URLQueryItem(name: "ggscoord", value: String(format: "%.6f|%.6f", search.latitude, search.longitude)),
                URLQueryItem(name: "ggsradius", value: String(radiusMeters)),
                URLQueryItem(name: "ggslimit", value: String(window)),
                URLQueryItem(name: "ggsnamespace", value: "6"),
                URLQueryItem(name: "prop", value: "imageinfo"),
                URLQueryItem(name: "iiprop", value: "url|user|extmetadata"),
                URLQueryItem(name: "iiurlwidth", value: String(thumbnailWidth)),
                URLQueryItem(name: "iiextmetadatafilter", value: "Artist|LicenseShortName"),
            ]
        ) { components in
            // `|` is legal in a query but some servers want it encoded.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "|", with: "%7C")
        }
    }

    struct Envelope: Decodable {
        struct APIError: Decodable {
            let code: String?
            let info: String?
        }
        struct Query: Decodable {
            let pages: Pages?
        }
        /// `pages` is an object keyed by page id, or an array with `formatversion=2`.
        struct Pages: Decodable {
            let list: [Page]
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let keyed = try? container.decode([String: Page].self) {
                    list = Array(keyed.values)
                } else {
                    list = try container.decode([Page].self)
                }
            }
        }
        struct Page: Decodable {
            let pageid: Int?
            let title: String?
            let imageinfo: [ImageInfo]?
        }
        struct ImageInfo: Decodable {
            let thumburl: String?
            let url: String?
            let descriptionurl: String?
            let user: String?
            let extmetadata: [String: Metadata]?
        }
        struct Metadata: Decodable {
            let value: LenientString?
        }
        let error: APIError?
        let query: Query?
    }

    static func decode(_ body: Data, provider: String) throws -> [RemotePhoto] {
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: body)
        } catch {
            throw PhotoProviderError.badResponse(provider: provider, reason: "not the JSON of a geosearch query")
        }
        if let error = envelope.error {
            throw PhotoProviderError.rejected(
                provider: provider, code: error.code ?? "?", message: error.info ?? "the API reported an error")
        }
        // No `query` at all means no files near the point.
        let pages = (envelope.query?.pages?.list ?? []).sorted { ($0.pageid ?? 0) < ($1.pageid ?? 0) }
        return pages.compactMap { page -> RemotePhoto? in
            guard let pageID = page.pageid, let title = page.title, let info = page.imageinfo?.first else { return nil }
            let fileExtension = (title as NSString).pathExtension.lowercased()
            guard imageExtensions.contains(fileExtension) else { return nil }
            guard let text = info.thumburl ?? info.url, let url = URL(string: text),
                ["http", "https"].contains(url.scheme?.lowercased() ?? "")
            else { return nil }
            let artist = info.extmetadata?["Artist"]?.value.map { plainText($0.value) }
            let author = [artist, info.user].compactMap { $0 }.first { !$0.isEmpty } ?? "a Wikimedia Commons contributor"
            return RemotePhoto(
                remoteID: String(pageID), imageURL: url, title: displayTitle(title), author: author,
                license: info.extmetadata?["LicenseShortName"]?.value.map { plainText($0.value) },
                pageURL: info.descriptionurl.flatMap(URL.init(string:))
            )
        }
    }

    /// "File:Golden Gate Bridge at dusk.jpg" -> "Golden Gate Bridge at dusk".
    static func displayTitle(_ title: String) -> String {
        var name = title.hasPrefix("File:") ? String(title.dropFirst(5)) : title
        let fileExtension = (name as NSString).pathExtension
        if !fileExtension.isEmpty { name = String(name.dropLast(fileExtension.count + 1)) }
        name = name.replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? "Untitled" : name
    }

    /// Commons metadata values are HTML fragments (`<a href=...>Name</a>`): keep the text.
    static func plainText(_ html: String) -> String {
        var text = ""
        var inTag = false
        for character in html {
            if character == "<" { inTag = true } else if character == ">" { inTag = false } else if !inTag { text.append(character) }
        }
        let entities = ["&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\"", "&#39;": "'", "&nbsp;": " "]
        for (entity, replacement) in entities { text = text.replacingOccurrences(of: entity, with: replacement) }
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
