import Foundation
import Geocoding
import Hummingbird
import Storage

/// `GET /api/locations/search?q=…&limit=…&skip=…`: the students of the request's class whose
/// name or place has, for each word typed, a word starting with it, folded for case, accents
/// and width ("muller" finds Müller, "sao paulo" finds São Paulo); and, when the words name a
/// place, the students placed there however their place is written ("برلين", "柏林" and
/// "Berlín" find "Berlin, Germany"). Answers like a Parse list (`{"results": [...]}`), newest
/// first; read by whoever may read the class. The Parse `where`/`$regex` is untouched: old
/// clients keep its exact meaning.
struct StudentSearchController: Sendable {
    let store: any StudentLocationRepository
    /// The gazetteer that knows a place's other names; nil searches the words alone.
    let places: Gazetteer?

    static let defaultLimit = 100
    static let maximumLimit = 1000
    static let maximumSkip = 10_000

    func addRoutes(to group: RouterGroup<ClassRequestContext>) {
        group.get("search", use: search)
    }

    @Sendable func search(_ request: Request, context: ClassRequestContext) async throws -> Response {
        try context.classAccess.requireReader(.api)
        let parameters = request.uri.queryParameters
        for (key, _) in parameters where !["q", "limit", "skip"].contains(String(key)) {
            throw APIError(.badRequest, "unknown_parameter", "Search takes q, limit and skip; \(key) is not one of them.")
        }
        let text = parameters["q"].map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty else {
            throw APIError(.badRequest, "missing_query", "Say what to search for: /api/locations/search?q=Berlin")
        }
        guard text.count <= SearchTerms.maximumQueryLength else {
            throw APIError(.badRequest, "query_too_long", "Searches are at most \(SearchTerms.maximumQueryLength) characters.")
        }
        let limit = try Self.number(parameters["limit"], name: "limit", default: Self.defaultLimit, range: 1...Self.maximumLimit)
        let skip = try Self.number(parameters["skip"], name: "skip", default: 0, range: 0...Self.maximumSkip)
        let words = SearchTerms.words(text)
        let otherNames = places?.namesOfPlace(text).map { SearchTerms.words($0) } ?? []
        let author = context.caller.signedIn.flatMap { $0.hasWaitingPost ? $0.accountKey : nil }
        let results = try await store.searchLocations(
            LocationSearch(alternatives: [words] + otherNames, limit: limit, skip: skip), in: context.mapClass.id, author: author)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: StudentLocationJSON.listBody(results, count: nil)))
    }

    private static func number(_ text: Substring?, name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError(
                .badRequest, "invalid_\(name)", "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }
}
